/*
 * sketches.hpp: header-only C++17 wrapper over the C ABI of libsketches
 * (include/sketches.h). Link libsketches.a or libsketches.so as for C (the
 * library has no std, so it needs no -lpthread -ldl -lm):
 *
 *   c++ -std=c++17 -Iinclude app.cpp target/release/libsketches.a
 *
 * Shape. One class template per family, mirroring sketches.h one to one:
 *
 *   family        owning (RAII)      view over caller memory    read-only view
 *   Bloom         bloom_filter       bloom_view                 bloom_const_view
 *   split-block   sbbf_filter        sbbf_view                  sbbf_const_view
 *   counting      counting_filter    counting_view              counting_const_view
 *   cuckoo        cuckoo_filter      cuckoo_view                cuckoo_const_view
 *   HyperLogLog   hll_sketch         hll_view                   hll_const_view
 *   UltraLogLog   ull_sketch         ull_view                   ull_const_view
 *   Count-Min     countmin_sketch    countmin_view              countmin_const_view
 *   Top-k         topk_sketch        topk_view                  topk_const_view
 *   MinHash       minhash_sketch     minhash_view               minhash_const_view
 *   binary fuse   fuse_filter        fuse_view                  fuse_const_view
 *   ExaLogLog     ell_sketch         ell_view                   ell_const_view
 *
 * The three are one template (basic_bloom<Storage>, ...) over a storage:
 * the owning type holds one buffer aligned to SKETCH_IMAGE_ALIGN (freed by
 * the destructor; movable, not copyable, clone() copies explicitly); the
 * views hold a pointer and a length into memory the caller owns (a stack
 * array, an mmap'ed file, shared memory) and never free it. The buffer is
 * the image: data()/size() are the live bytes, to_bytes() the exported image
 * with its checksum, from_bytes() the checked import. Operations that change
 * the sketch do not compile on a *_const_view. A named owning object
 * converts implicitly to its views (and a view to the const view), and
 * every operation taking "another sketch" (merge, jaccard) takes any of the
 * three, a temporary owning sketch included, or the sketch itself (a.merge(a)
 * merges a copy, as a.merge(a.clone()) does); a view of a temporary owning
 * sketch (`bloom_const_view v = bloom_filter::from_bytes(b);`) does not
 * compile, since its buffer dies with the statement.
 *
 * Keys. Every single-key operation takes bytes (a byte_source parameter:
 * std::string_view, const char * (C string), std::string,
 * std::vector<uint8_t>, std::array of bytes, std::span<const std::byte> in
 * C++20, or byte_view(pointer, length); a temporary container passed to the
 * call lives until it returns, while a byte_view made of one, `byte_view k =
 * make_key();`, does not compile, as it would dangle) or an
 * integer of up to 64 bits (hashed as its 8 little-endian bytes, the _u64 C
 * forms; a char, bool or floating-point argument does not compile rather
 * than being hashed as an integer: write std::string_view(&c, 1); nor does
 * a char pointer followed by an integer, C's (key, key_len), in hash,
 * hash_xxh64 and the Count-Min / Top-k add(key, weight), which read it as a
 * C string and a seed or weight: write byte_view(p, n)); the
 * *_hash forms take a precomputed sketches::hash(key, seed). Batches take any
 * container of keys, which they iterate twice (counting, then reading the
 * keys: a single-pass range, std::istream_iterator's, does not compile, and
 * one yielding another number of keys the second time is
 * status::invalid_argument, nothing changed): elements convertible to byte_view go through the
 * _batch C form (one sketch_slice per key, no copy of the key bytes),
 * integer elements through the _u64_batch form (no copy when the container
 * holds contiguous uint64_t/int64_t), and a packed_view / packed_keys
 * (Arrow Binary layout: one data buffer plus count + 1 uint32 offsets)
 * through the _packed form (a packed_view of a temporary packed_keys,
 * `packed_view v = load_keys();`, does not compile: it would dangle; pass
 * the temporary itself, which lives until the batch call returns).
 * Weights, hashes and per-key outputs are array_sources (a vector, array,
 * span, a temporary or braced list passed to the call; an array_view of a
 * temporary does not compile). Batches of up to 64 keys use no heap memory
 * (but for the std::vector the value-returning forms return); larger ones
 * allocate a scratch array for the key slices or copied integers, and one
 * for a per-key output the C call requires when none is given (counting
 * remove_batch), never one per key. The hash rule
 * is the one of every binding: XXH3-64 with the image's seed.
 *
 * Tokens. Bloom, split-block and HyperLogLog objects keep their image's
 * sketch_token (taken at create, from_bytes, init and view construction;
 * views made from an object copy it), and their single-key add / contains
 * call the _with_token C forms, which skip the header validation while the
 * token matches the image. Memory re-initialized behind a view's back only
 * makes those calls validate in full; refresh_token() takes the token again.
 *
 * Errors. Every operation exists in two forms:
 *  - try_xxx(...) noexcept returns sketches::status (an enum class over the
 *    C status numbers) or result<T> {status, value}: the C call's status,
 *    outputs written only on success, exactly as in C. Always available.
 *  - xxx(...) returns the value and throws sketches::error (a
 *    std::runtime_error whose status() is the status, family() the
 *    family's name, "bloom", ..., and what() "bloom: " + sketch_status_str)
 *    on failure; allocation failure throws std::bad_alloc.
 *    Two C statuses are outcomes rather than errors in this form: a cuckoo
 *    add that finds no room returns false (SKETCH_FULL) and a remove of an
 *    absent key returns false (SKETCH_NOT_PRESENT); nothing changed in
 *    either case.
 * The throwing forms exist only when exceptions are enabled: with
 * -fno-exceptions (proxies, firmware) SKETCHES_EXCEPTIONS is 0 and only the
 * try_ forms are declared, so no code path can abort on an error. Define
 * SKETCHES_EXCEPTIONS to 0 to get the same in an exception-enabled build.
 * A program may link translation units built with and without exceptions:
 * each kind gets the wrapper in its own inline namespace
 * (sketches::with_exceptions, sketches::without_exceptions), so the try_
 * forms of one never run the other's code, and a wrapper object does not
 * pass between the two kinds (a link error): pass the image's memory,
 * data() and size(), and make a view of it on the other side.
 * The owning types allocate with the nothrow aligned operator new and report
 * status::out_of_memory (a wrapper-only value, -1) from the try_ forms, as
 * do the try_ forms that fill standard containers (try_to_bytes, topk
 * try_list, minhash try_signature, packed_keys::try_push_back): they catch
 * the container's std::bad_alloc and never throw. Built with
 * -fno-exceptions, the standard library cannot report that failure and
 * aborts; the forms writing into caller memory allocate no container and
 * never abort: try_export_to, try_list_into, try_signature_into, batches
 * from a packed_view over your own buffers (batches of more than 64 keys
 * allocate their scratch with the nothrow operator new: out_of_memory).
 *
 * Streams (files, sockets, pipes). s.write_to(out) writes exactly the
 * exported image (the bytes of s.to_bytes(), without copying the image) to
 * a std::ostream and returns the byte count, on the owning types and both
 * views; bloom_filter::read_from(in) (each family's owning type) reads
 * exactly one image back from a std::istream, never a byte more, so images
 * written one after another read back one by one, and
 * sketches::read_sketch(in) reads one of any family as a
 * sketches::any_sketch (a std::variant of the eleven owning types, index
 * = family id - 1). A read returns std::optional: std::nullopt at a clean
 * end of the stream (no byte left), so `while (auto s =
 * sketches::read_sketch(in))` reads every image. The length a header
 * announces is untrusted: the buffer starts at 64 KiB and doubles as bytes
 * arrive (a forged length costs about three times what arrived, and ends
 * in a truncated-stream error). The image is checked as from_bytes checks
 * it. A stream that ends inside an image is status::length_mismatch
 * ("truncated stream: X of Y image bytes"); a header of no known family is
 * status::corrupt_header; a failed stream (badbit, or failbit without its
 * end) is status::stream_error, a wrapper-only status (-2). The try_ forms
 * (try_write_to, try_read_from, try_read_sketch) return result<size_t> and
 * read_result<T> (the status, the optional sketch, the bytes read and
 * announced, and message() with the detail); the throwing forms throw
 * sketches::error with that detail in what(), or pass on unchanged an
 * exception the stream itself threw (its exceptions() mask). Writes are
 * not flushed: check the stream after flush().
 *
 * Threads. As for the C ABI: const member functions only read and may run
 * concurrently on one image; the others need exclusive access. Except the
 * concurrent members of bloom, sbbf, hll and ull (add_concurrent,
 * add_concurrent_hash, add_concurrent_batch, contains_concurrent*,
 * capacity_flags_concurrent, over_capacity_concurrent, estimate_concurrent,
 * and their try_ forms), which any number of threads
 * may call on one image at once (atomic operations on its 64-bit words;
 * the image must be 8-byte aligned). While any of them runs, no other
 * member may touch that image. Once the adding threads are joined, the
 * bits/registers equal those of the same adds made one at a time; Bloom
 * "inserted" counts depend on the order and the HLL/ULL martingale
 * estimate ends (estimate() then reports the register estimate). An hll
 * must be dense first: densify() (exclusive), else status::small_mode.
 * No member writes to the object itself but assignment, refresh_token and
 * the ones changing its size (a split-block fold): the concurrent members
 * may be called on one shared object, or each thread may hold its own view.
 * Making a view from a pointer and a length (or refresh_token) reads the
 * image's header for the token, which the concurrent adds write: that
 * counts as touching the image, so make the threads' views before the
 * adds start, or copy them from the owning sketch or from another view
 * (`bloom_view v = shared;`, which reads nothing of the image).
 */
#ifndef SKETCHES_HPP
#define SKETCHES_HPP

#include "sketches.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <initializer_list>
#include <ios>
#include <istream>
#include <iterator>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

/* Whether the compiler has exceptions (whatever SKETCHES_EXCEPTIONS says):
   the try_ forms that fill standard containers then catch their allocation
   failure and report status::out_of_memory. */
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS) || defined(_CPPUNWIND)
#define SKETCHES_DETAIL_CAN_CATCH 1
#else
#define SKETCHES_DETAIL_CAN_CATCH 0
#endif

#ifndef SKETCHES_EXCEPTIONS
#define SKETCHES_EXCEPTIONS SKETCHES_DETAIL_CAN_CATCH
#endif

/* The functions whose bodies depend on SKETCHES_DETAIL_CAN_CATCH (the
   stream reads and writes, the try_ forms filling containers, and every
   function calling them) must not share a name between a translation unit
   built with exceptions and one built without: the linker keeps one
   definition of equal names for the whole program, and a -fno-exceptions
   module's (which catches nothing) made the program's noexcept try_ forms
   let a stream's exception escape (std::terminate). So every name of the
   wrapper lives in an inline namespace of its mode: code names them
   sketches::bloom_filter, ... as ever, but a wrapper object cannot pass
   between the two kinds of translation units (a link error): pass the
   image's memory (data(), size()) and make a view on the other side. */
#if SKETCHES_DETAIL_CAN_CATCH
#define SKETCHES_DETAIL_MODE with_exceptions
#else
#define SKETCHES_DETAIL_MODE without_exceptions
#endif

namespace sketches {
inline namespace SKETCHES_DETAIL_MODE {

/* ------------------------------------------------------------------ */
/* Status, errors, results                                             */
/* ------------------------------------------------------------------ */

/// The status of a call: the stable SKETCH_* numbers of sketches.h, plus
/// out_of_memory (-1) for the wrapper's own allocations and stream_error
/// (-2) for a failed std::istream / std::ostream (see "Streams" at the top).
enum class [[nodiscard]] status : std::int32_t {
    ok = SKETCH_OK,
    null_pointer = SKETCH_NULL_POINTER,
    buffer_too_small = SKETCH_BUFFER_TOO_SMALL,
    misaligned = SKETCH_MISALIGNED,
    invalid_parameter = SKETCH_INVALID_PARAMETER,
    invalid_argument = SKETCH_INVALID_ARGUMENT,
    bad_magic = SKETCH_BAD_MAGIC,
    unsupported_version = SKETCH_UNSUPPORTED_VERSION,
    wrong_family = SKETCH_WRONG_FAMILY,
    corrupt_header = SKETCH_CORRUPT_HEADER,
    checksum_mismatch = SKETCH_CHECKSUM_MISMATCH,
    length_mismatch = SKETCH_LENGTH_MISMATCH,
    incompatible = SKETCH_INCOMPATIBLE,
    unsupported_hash = SKETCH_UNSUPPORTED_HASH,
    overlap = SKETCH_OVERLAP,
    internal_error = SKETCH_INTERNAL_ERROR,
    not_present = SKETCH_NOT_PRESENT,
    full = SKETCH_FULL,
    corrupt_body = SKETCH_CORRUPT_BODY,
    compact_image = SKETCH_COMPACT_IMAGE,
    key_too_long = SKETCH_KEY_TOO_LONG,
    build_failed = SKETCH_BUILD_FAILED,
    small_mode = SKETCH_SMALL_MODE,
    /// Wrapper only: an aligned buffer or batch scratch could not be allocated.
    out_of_memory = -1,
    /// Wrapper only: the std::istream or std::ostream of a stream read or
    /// write failed (its badbit, or its failbit without the end of the
    /// stream: a stream already in a failed state, a device error, a write
    /// the stream refused).
    stream_error = -2,
};

/// Static text of a status (sketch_status_str; "out of memory" for
/// out_of_memory, "stream error (the std::istream or std::ostream failed)"
/// for stream_error).
[[nodiscard]] inline const char *status_text(sketches::status s) noexcept {
    if (s == sketches::status::out_of_memory) return "out of memory";
    if (s == sketches::status::stream_error) return "stream error (the std::istream or std::ostream failed)";
    return sketch_status_str(static_cast<std::int32_t>(s));
}

/// The exception the throwing forms raise: status() is the status,
/// family() the family whose operation failed ("bloom", "sbbf", "counting",
/// "cuckoo", "hll", "ull", "countmin", "topk", "minhash", "fuse", "ell": the
/// C prefix sketch_<family>_; "" for the free functions and packed_keys),
/// and what() is "<family>: <status_text>" ("bloom: checksum mismatch"),
/// or the status text alone without a family; the stream reads add a
/// detail after another ": " ("bloom: <length mismatch text>: truncated
/// stream: 100 of 4096 image bytes").
class error : public std::runtime_error {
  public:
    explicit error(sketches::status s, const char *family = nullptr)
        : std::runtime_error(family == nullptr || *family == '\0' ? std::string(status_text(s))
                                                                  : std::string(family) + ": " + status_text(s)),
          status_(s), family_(family == nullptr ? "" : family) {}
    /// The same with `detail` appended to what() after ": " (nothing when empty).
    error(sketches::status s, const char *family, const std::string &detail)
        : std::runtime_error(error(s, family).what() + (detail.empty() ? std::string() : ": " + detail)),
          status_(s), family_(family == nullptr ? "" : family) {}
    [[nodiscard]] sketches::status status() const noexcept { return status_; }
    /// The family's name (a static string), or "".
    [[nodiscard]] const char *family() const noexcept { return family_; }

  private:
    sketches::status status_;
    const char *family_;
};

namespace detail {
/* T is an owning sketch (bloom_filter, ...: a static is_owning that is true). */
template <class T, class = void>
struct owns_image : std::false_type {};
template <class T>
struct owns_image<T, std::void_t<decltype(T::is_owning)>> : std::bool_constant<T::is_owning> {};
/* ... or an optional one, or a variant of them (what the stream reads give). */
template <class T>
struct owns_image<std::optional<T>, void> : owns_image<T> {};
template <class... T>
struct owns_image<std::variant<T...>, void> : std::disjunction<owns_image<T>...> {};
} // namespace detail

/// A status and, when it is ok, a value (value-initialized otherwise).
/// `if (r)` tests the status, for every T but bool: a result<bool> (the
/// try_ forms of add and contains) has no conversion to bool, because
/// `if (f.try_contains(key))` would read as "present" and mean "the call
/// succeeded". Test `r.ok()` and read `r.value` (or `*r`) instead.
template <class T>
struct [[nodiscard]] result {
    sketches::status status = sketches::status::ok;
    T value{};

    [[nodiscard]] constexpr bool ok() const noexcept { return status == sketches::status::ok; }
    /// The status is ok (not for result<bool>, see above).
    template <class U = T, std::enable_if_t<!std::is_same_v<U, bool>, int> = 0>
    constexpr explicit operator bool() const noexcept {
        return ok();
    }
    /// Deleted: a result<bool> is not its status as a bool; use ok() and value.
    template <class U = T, std::enable_if_t<std::is_same_v<U, bool>, int> = 0>
    explicit operator bool() const noexcept = delete;
    constexpr T &operator*() & noexcept { return value; }
    constexpr const T &operator*() const & noexcept { return value; }
    /// The value of a temporary result, to move out
    /// (`bloom_filter f = *bloom_filter::try_create(p);`); a view of it
    /// (`bloom_const_view v = *bloom_filter::try_from_bytes(b);`) does not
    /// compile, as for any temporary owning sketch.
    constexpr T &&operator*() && noexcept { return std::move(value); }
    constexpr const T &&operator*() const && noexcept { return std::move(value); }
    constexpr T *operator->() & noexcept { return &value; }
    constexpr const T *operator->() const & noexcept { return &value; }
    /// On a temporary result: for values other than owning sketches
    /// (`bloom_filter::try_plan(n, p)->bits`).
    template <class U = T, std::enable_if_t<!detail::owns_image<U>::value, int> = 0>
    constexpr T *operator->() && noexcept {
        return &value;
    }
    template <class U = T, std::enable_if_t<!detail::owns_image<U>::value, int> = 0>
    constexpr const T *operator->() const && noexcept {
        return &value;
    }
    /// Deleted for a temporary owning sketch: `try_create(p)->const_view()`
    /// (or view(), bytes()) pointed into a buffer freed at the end of the
    /// statement. Name the result, or move the sketch out with `*`.
    template <class U = T, std::enable_if_t<detail::owns_image<U>::value, int> = 0>
    T *operator->() && = delete;
    template <class U = T, std::enable_if_t<detail::owns_image<U>::value, int> = 0>
    const T *operator->() const && = delete;
};

/// Alignment the owning types allocate with (a cache line; live images need 8).
inline constexpr std::size_t image_align = SKETCH_IMAGE_ALIGN;

/// What a stream read (try_read_from, try_read_sketch) reports: the status,
/// the sketch read (value, a std::optional: std::nullopt with status ok at
/// a clean end of the stream, where no byte was left), and how far the read
/// got, for logs and for message(). Like result<T>, `if (r)` tests the
/// status; read `r.value` (or `*r`, a std::optional) on success.
template <class T>
struct [[nodiscard]] read_result : result<std::optional<T>> {
    /// Bytes this read took from the stream, on failure too (a read that
    /// failed leaves the stream inside the refused image: read no further
    /// images from it).
    std::uint64_t bytes_read = 0;
    /// Length in bytes of the image the header announced (untrusted: what
    /// the read was to take); SKETCH_COMMON_HEADER_BYTES (48) when the
    /// stream ended inside the header, 0 before any byte arrived.
    std::uint64_t image_bytes = 0;
    /// The family id the header named (SKETCH_FAMILY_*; an unknown one for
    /// status::corrupt_header), 0 before the header was complete.
    std::uint16_t family_id = 0;

    /// The status text, and after ": " what went wrong in the stream when
    /// that says more: "truncated stream: X of Y image bytes" (Y is 48 when
    /// the stream ended inside the header), "unknown family id N", "the
    /// stream holds a <family> image", "the stream does not continue with
    /// an image", "the stream failed after X of Y image bytes" (or "before
    /// an image's first byte"). The text the
    /// throwing forms' sketches::error::what() gives after the family name.
    /// Allocates the string (std::bad_alloc when it cannot).
    [[nodiscard]] std::string message() const;
};


/* C structs, used as they are. */
using bloom_params = sketch_bloom_params;
using bloom_stats = sketch_bloom_stats;
using sbbf_params = sketch_sbbf_params;
using sbbf_stats = sketch_sbbf_stats;
using counting_stats = sketch_counting_stats;
using cuckoo_params = sketch_cuckoo_params;
using cuckoo_stats = sketch_cuckoo_stats;
using hll_stats = sketch_hll_stats;
using ull_stats = sketch_ull_stats;
using countmin_params = sketch_countmin_params;
using countmin_stats = sketch_countmin_stats;
using topk_stats = sketch_topk_stats;
using topk_estimate = sketch_topk_key_estimate;
/// A listed Top-k key whose bytes point into the sketch's buffer.
using topk_item = sketch_topk_item;
using minhash_stats = sketch_minhash_stats;
using fuse_params = sketch_fuse_params;
using fuse_stats = sketch_fuse_stats;
using ell_params = sketch_ell_params;
using ell_stats = sketch_ell_stats;
using image_info = sketch_image_info;

/// A listed Top-k key with its bytes copied out.
struct topk_entry {
    std::string key;
    std::uint64_t count = 0; ///< Upper bound of the true count.
    std::uint64_t error = 0; ///< Maximum overestimation: the true count is at least count - error.
};

namespace detail {

template <class T>
using remove_cvref_t = std::remove_cv_t<std::remove_reference_t<T>>;

[[nodiscard]] constexpr sketches::status st(sketch_status s) noexcept {
    return static_cast<sketches::status>(s);
}

template <class T>
struct size_of : std::integral_constant<std::size_t, sizeof(T)> {};

/* E is a one-byte trivially copyable object type (char, unsigned char, std::byte, ...). */
template <class E>
struct is_byte_element
    : std::bool_constant<std::conditional_t<std::is_object_v<E>, size_of<E>,
                                            std::integral_constant<std::size_t, 0>>::value == 1 &&
                         std::is_trivially_copyable_v<E>> {};

template <class R, class = void>
struct contiguous : std::false_type {
    using element = void;
};
template <class R>
struct contiguous<R, std::void_t<decltype(std::data(std::declval<R &>())),
                                 decltype(std::size(std::declval<R &>()))>>
    : std::is_pointer<decltype(std::data(std::declval<R &>()))> {
    using element = std::remove_pointer_t<decltype(std::data(std::declval<R &>()))>;
};

/* A container a byte_view of an rvalue would dangle from: one that holds
   its bytes (std::string, std::vector, std::array), not a view of bytes held
   elsewhere (std::string_view, std::span, which are trivially copyable). */
template <class E>
struct is_std_array : std::false_type {};
template <class T, std::size_t N>
struct is_std_array<std::array<T, N>> : std::true_type {};
template <class R>
constexpr bool owns_its_bytes_v = !std::is_trivially_copyable_v<R> || is_std_array<R>::value;

} // namespace detail

/* ------------------------------------------------------------------ */
/* Keys and arrays                                                      */
/* ------------------------------------------------------------------ */

/// A key: a pointer and a length of bytes (never owns them). Like a
/// std::string_view it must not outlive the bytes, so one made of a
/// temporary container that owns them (`byte_view k = make_key();` of a
/// returned std::string, std::vector or std::array) does not compile: its
/// bytes died with the statement. The members taking a key take a
/// byte_source, which a temporary passed straight to the call outlives.
class byte_view {
  public:
    constexpr byte_view() noexcept = default;
    constexpr byte_view(const void *data, std::size_t size) noexcept : data_(data), size_(size) {}
    constexpr byte_view(std::string_view s) noexcept : data_(s.data()), size_(s.size()) {}
    /// A NUL-terminated C string (its bytes without the NUL; NULL is the empty key).
    byte_view(const char *s) noexcept : data_(s), size_(s == nullptr ? 0 : std::strlen(s)) {}
    /// Any contiguous container of one-byte elements except built-in arrays
    /// (a char array is a C string: pass it as const char * or string_view).
    template <class R, class E = typename detail::contiguous<const R>::element,
              std::enable_if_t<detail::contiguous<const R>::value && detail::is_byte_element<E>::value &&
                                   !std::is_array_v<R> && !std::is_same_v<R, byte_view>,
                               int> = 0>
    constexpr byte_view(const R &r) noexcept : data_(std::data(r)), size_(std::size(r)) {}
    /// Deleted: a temporary owning container (its bytes die with the statement).
    template <class R, class E = typename detail::contiguous<const R>::element,
              std::enable_if_t<detail::contiguous<const R>::value && detail::is_byte_element<E>::value &&
                                   !std::is_array_v<R> && detail::owns_its_bytes_v<R>,
                               int> = 0>
    byte_view(const R &&r) = delete;

    [[nodiscard]] constexpr const void *data() const noexcept { return data_; }
    [[nodiscard]] constexpr std::size_t size() const noexcept { return size_; }
    [[nodiscard]] constexpr bool empty() const noexcept { return size_ == 0; }
    [[nodiscard]] std::string_view as_string_view() const noexcept {
        return size_ == 0 ? std::string_view() : std::string_view(static_cast<const char *>(data_), size_);
    }

  private:
    const void *data_ = nullptr;
    std::size_t size_ = 0;
};

/// What the members and functions taking one key or image bytes take: what
/// a byte_view is made of, a temporary container included
/// (`f.add(make_key())`, `bloom_filter::from_bytes(read_file())`: it lives
/// until the call returns). Only a parameter type: keep a byte_view of a
/// named object, not a byte_source.
class byte_source : public byte_view {
  public:
    constexpr byte_source() noexcept = default;
    constexpr byte_source(byte_view key) noexcept : byte_view(key) {}
    constexpr byte_source(std::string_view s) noexcept : byte_view(s) {}
    byte_source(const char *s) noexcept : byte_view(s) {}
    /// A contiguous container of one-byte elements, as byte_view takes it,
    /// also a temporary one.
    template <class R, class E = typename detail::contiguous<const R>::element,
              std::enable_if_t<detail::contiguous<const R>::value && detail::is_byte_element<E>::value &&
                                   !std::is_array_v<R> && !std::is_base_of_v<byte_view, R>,
                               int> = 0>
    constexpr byte_source(const R &r) noexcept : byte_view(std::data(r), std::size(r)) {}
};

/// A Count-Min or Top-k weight: an integer of up to 64 bits. A negative one
/// (a signed weight below 0) makes the add return status::invalid_argument
/// and change nothing, as Java and Python refuse it (an implicit conversion
/// to std::uint64_t made add(key, -1) a weight of 2^64 - 1, saturating the
/// key's counts); a floating-point or bool weight does not compile (2.5
/// was the weight 2), nor does an integer wider than 64 bits (a GNU
/// __int128, whose cut to 64 bits made the weight 2^64 + 5 a weight of 5).
class weight_value {
  public:
    template <class W, std::enable_if_t<std::is_integral_v<W> && !std::is_same_v<W, bool> &&
                                            sizeof(W) <= sizeof(std::uint64_t),
                                        int> = 0>
    constexpr weight_value(W w) noexcept
        : value_(static_cast<std::uint64_t>(w)), negative_(std::is_signed_v<W> && w < W{}) {}
    template <class W, std::enable_if_t<std::is_floating_point_v<W> || std::is_same_v<W, bool> ||
                                            (std::is_integral_v<W> && sizeof(W) > sizeof(std::uint64_t)),
                                        int> = 0>
    weight_value(W) = delete;

    [[nodiscard]] constexpr std::uint64_t value() const noexcept { return value_; }
    [[nodiscard]] constexpr bool negative() const noexcept { return negative_; }

  private:
    std::uint64_t value_;
    bool negative_;
};

/// A pointer and a count of T (T const for inputs): built from a std::vector,
/// std::array, built-in array, std::span (C++20) or (pointer, count). Like a
/// std::span it must not outlive the elements, so one made of a temporary
/// container that owns them (`array_source<const std::uint64_t> w =
/// make_weights();`, or of a braced list, `= {1, 2}`) does not compile: the
/// elements died with the statement. The members taking arrays take an
/// array_source, which a temporary (or a braced list) passed straight to the
/// call outlives.
template <class T>
class array_view {
  public:
    constexpr array_view() noexcept = default;
    constexpr array_view(T *data, std::size_t size) noexcept : data_(data), size_(size) {}
    template <std::size_t N>
    constexpr array_view(T (&a)[N]) noexcept : data_(a), size_(N) {}
    template <class R, class E = typename detail::contiguous<std::remove_reference_t<R>>::element,
              std::enable_if_t<detail::contiguous<std::remove_reference_t<R>>::value &&
                                   std::is_convertible_v<E (*)[], T (*)[]> &&
                                   !std::is_array_v<std::remove_reference_t<R>> &&
                                   !std::is_base_of_v<array_view, detail::remove_cvref_t<R>> &&
                                   (std::is_lvalue_reference_v<R> || !detail::owns_its_bytes_v<detail::remove_cvref_t<R>>),
                               int> = 0>
    constexpr array_view(R &&r) noexcept : data_(std::data(r)), size_(std::size(r)) {}
    /// Deleted: a temporary container that owns its elements.
    template <class R, class E = typename detail::contiguous<std::remove_reference_t<R>>::element,
              std::enable_if_t<detail::contiguous<std::remove_reference_t<R>>::value &&
                                   std::is_convertible_v<E (*)[], T (*)[]> &&
                                   !std::is_array_v<std::remove_reference_t<R>> && !std::is_lvalue_reference_v<R> &&
                                   detail::owns_its_bytes_v<detail::remove_cvref_t<R>>,
                               int> = 0>
    array_view(R &&r) = delete;
    /// Deleted: a braced list's array dies with the statement.
    template <class U = T, std::enable_if_t<std::is_const_v<U>, int> = 0>
    array_view(std::initializer_list<std::remove_const_t<U>> list) = delete;

    [[nodiscard]] constexpr T *data() const noexcept { return data_; }
    [[nodiscard]] constexpr std::size_t size() const noexcept { return size_; }
    [[nodiscard]] constexpr bool empty() const noexcept { return size_ == 0; }
    [[nodiscard]] constexpr T *begin() const noexcept { return data_; }
    [[nodiscard]] constexpr T *end() const noexcept { return data_ + size_; }
    constexpr T &operator[](std::size_t i) const noexcept { return data_[i]; }

  private:
    T *data_ = nullptr;
    std::size_t size_ = 0;
};

/// What the members taking an array (weights, hashes, per-key outputs)
/// take: what an array_view is made of, temporaries included (a returned
/// std::vector, or an initializer list for const T: `add_hash_batch({h1,
/// h2})`), which live until the call returns. Only a parameter type: keep an
/// array_view of a named container, not an array_source.
template <class T>
class array_source : public array_view<T> {
  public:
    constexpr array_source() noexcept = default;
    constexpr array_source(array_view<T> v) noexcept : array_view<T>(v) {}
    constexpr array_source(T *data, std::size_t size) noexcept : array_view<T>(data, size) {}
    template <std::size_t N>
    constexpr array_source(T (&a)[N]) noexcept : array_view<T>(a, N) {}
    template <class R, class E = typename detail::contiguous<std::remove_reference_t<R>>::element,
              std::enable_if_t<detail::contiguous<std::remove_reference_t<R>>::value &&
                                   std::is_convertible_v<E (*)[], T (*)[]> &&
                                   !std::is_array_v<std::remove_reference_t<R>> &&
                                   !std::is_base_of_v<array_view<T>, detail::remove_cvref_t<R>>,
                               int> = 0>
    constexpr array_source(R &&r) noexcept : array_view<T>(std::data(r), std::size(r)) {}
    template <class U = T, std::enable_if_t<std::is_const_v<U>, int> = 0>
    constexpr array_source(std::initializer_list<std::remove_const_t<U>> list) noexcept
        : array_view<T>(std::data(list), list.size()) {}
};

/// Keys in the Arrow Binary/String layout: key i is bytes
/// [offsets[i], offsets[i+1]) of data; offsets has count + 1 entries.
/// Made empty or of all four parts: `f.add_batch({"alice"})` initialized one
/// from a braced list of keys (data = "alice", count = 0) and added nothing,
/// silently; a braced list of keys does not compile (pass a container such
/// as std::vector<std::string_view>{...}, or packed_keys).
struct packed_view {
    const void *data = nullptr;
    std::size_t data_len = 0;
    const std::uint32_t *offsets = nullptr;
    std::size_t count = 0;

    constexpr packed_view() noexcept = default;
    constexpr packed_view(const void *bytes, std::size_t bytes_len, const std::uint32_t *key_offsets,
                          std::size_t keys) noexcept
        : data(bytes), data_len(bytes_len), offsets(key_offsets), count(keys) {}
    /// Deleted: a braced list of keys is not packed keys.
    packed_view(std::initializer_list<byte_view>) = delete;
};

/// Builds packed keys (one growing byte string and the offsets): a compact
/// way to hold many keys, and what the _packed C forms take.
class packed_keys {
  public:
    packed_keys() = default;

    /// Appends a key; status::invalid_argument (nothing appended) once the
    /// data would pass 4 GiB, the limit of 32-bit offsets, and
    /// status::out_of_memory (nothing appended) when the buffers cannot
    /// grow. Never throws; built with -fno-exceptions, the standard
    /// library aborts on that allocation failure instead (see "Errors" at
    /// the top: a packed_view over your own buffers allocates nothing).
    sketches::status try_push_back(byte_source key) noexcept {
        if (key.size() > std::numeric_limits<std::uint32_t>::max() - data_.size()) {
            return sketches::status::invalid_argument;
        }
#if SKETCHES_DETAIL_CAN_CATCH
        try {
            append(key);
        } catch (const std::bad_alloc &) {
            return sketches::status::out_of_memory;
        } catch (const std::length_error &) {
            return sketches::status::out_of_memory;
        }
#else
        append(key);
#endif
        return sketches::status::ok;
    }
    /// Appends every key of a container (elements a byte_view is made of),
    /// all or nothing: on status::invalid_argument (past 4 GiB of data) or
    /// status::out_of_memory nothing is appended. Never throws: the form of
    /// the constructor from a container that a -fno-exceptions build has.
    template <class Keys>
    sketches::status try_append(const Keys &keys) noexcept {
        std::size_t bytes = data_.size();
        std::size_t offsets = offsets_.size();
        for (const auto &k : keys) {
            sketches::status s = try_push_back(byte_view(k));
            if (s != sketches::status::ok) {
                data_.resize(bytes); // shrinking: no allocation
                offsets_.resize(offsets);
                return s;
            }
        }
        return sketches::status::ok;
    }
#if SKETCHES_EXCEPTIONS
    /// Appends a key; throws sketches::error(invalid_argument) past 4 GiB of
    /// data and std::bad_alloc when the buffers cannot grow (nothing appended).
    void push_back(byte_source key) {
        sketches::status s = try_push_back(key);
        if (s == sketches::status::out_of_memory) throw std::bad_alloc();
        if (s != sketches::status::ok) throw error(s);
    }
    /// Packs every key of a container.
    template <class Keys>
    explicit packed_keys(const Keys &keys) {
        for (const auto &k : keys) push_back(byte_view(k));
    }
    packed_keys(std::initializer_list<byte_view> keys) {
        for (byte_view k : keys) push_back(k);
    }
#endif
    void clear() noexcept {
        data_.clear();
        offsets_.clear();
    }
    /// Number of keys.
    [[nodiscard]] std::size_t size() const noexcept { return offsets_.empty() ? 0 : offsets_.size() - 1; }
    [[nodiscard]] bool empty() const noexcept { return size() == 0; }
    /// Key i as a string_view into the packed data.
    [[nodiscard]] std::string_view operator[](std::size_t i) const noexcept {
        return std::string_view(data_).substr(offsets_[i], offsets_[i + 1] - offsets_[i]);
    }
    /// The keys as a packed_view: it borrows this object's buffers, so it
    /// is valid while the object lives unchanged. Deleted on a temporary
    /// (`packed_view v = load_keys();` or `load_keys().view()` pointed into
    /// buffers freed at the end of the statement); a temporary passed
    /// straight to a batch call is fine: the batch members take a
    /// packed_source, which the temporary outlives.
    [[nodiscard]] packed_view view() const & noexcept {
        return packed_view{data_.data(), data_.size(), offsets_.empty() ? zero_ : offsets_.data(), size()};
    }
    packed_view view() const && = delete;
    operator packed_view() const & noexcept { return view(); }
    operator packed_view() const && = delete;

  private:
    /* Appends a key of at most the bytes left below 4 GiB; when an
       allocation throws, nothing is appended (the bytes and the offsets
       stay as they were). */
    void append(byte_source key) {
        // Room for the new offset first: once the bytes are appended, the
        // offset must go in without an allocation that could throw.
        std::size_t need = offsets_.size() + (offsets_.empty() ? 2 : 1);
        if (need > offsets_.capacity()) {
            offsets_.reserve(need > 2 * offsets_.capacity() ? need : 2 * offsets_.capacity());
        }
        if (offsets_.empty()) offsets_.push_back(0);
        data_.append(static_cast<const char *>(key.data()), key.size());
        offsets_.push_back(static_cast<std::uint32_t>(data_.size()));
    }

    static constexpr std::uint32_t zero_[1] = {0};
    std::string data_;
    std::vector<std::uint32_t> offsets_;
};

/// What the batch members (and hash_batch, the fuse build) take as packed
/// keys: a packed_view, or a packed_keys object, a temporary one included
/// (`f.add_batch(sketches::packed_keys(keys))`: it lives until the call
/// returns). Only a parameter type: keep a packed_keys or a packed_view of a
/// named packed_keys, not a packed_source.
struct packed_source : packed_view {
    /// No keys (`f.add_batch({})`).
    constexpr packed_source() noexcept = default;
    constexpr packed_source(const packed_view &keys) noexcept : packed_view(keys) {}
    /// Deleted: a braced list of keys is not packed keys (see packed_view).
    packed_source(std::initializer_list<byte_view>) = delete;
    /// The keys of a packed_keys (a template, so that a braced list of keys
    /// is not taken for one: see packed_view).
    template <class K, std::enable_if_t<std::is_same_v<K, packed_keys>, int> = 0>
    packed_source(const K &keys) noexcept : packed_view(keys.view()) {}
};

/* ------------------------------------------------------------------ */
/* Internals: storage, batches                                          */
/* ------------------------------------------------------------------ */

namespace detail {

/// Tag of the constructor adopting an allocated buffer.
struct adopt_t {
    explicit adopt_t() = default;
};
inline constexpr adopt_t adopt{};
/// Tag: a view made with the token of the image it views.
struct with_token_t {
    explicit with_token_t() = default;
};
inline constexpr with_token_t with_token{};

/// One buffer aligned to image_align, owned (RAII, movable, not copyable).
class owned_storage {
  public:
    static constexpr bool is_owning = true;
    static constexpr bool is_mutable = true;

    owned_storage() noexcept = default;
    owned_storage(owned_storage &&other) noexcept
        : ptr_(std::exchange(other.ptr_, nullptr)), size_(std::exchange(other.size_, 0)) {}
    owned_storage &operator=(owned_storage &&other) noexcept {
        if (this != &other) {
            release();
            ptr_ = std::exchange(other.ptr_, nullptr);
            size_ = std::exchange(other.size_, 0);
        }
        return *this;
    }
    owned_storage(const owned_storage &) = delete;
    owned_storage &operator=(const owned_storage &) = delete;
    ~owned_storage() { release(); }

    /// Allocates `size` bytes (capacity rounded up to image_align) into `out`.
    static sketches::status allocate(std::uint64_t size, owned_storage &out) noexcept {
        owned_storage fresh;
        if (size > 0) {
            if (size > std::numeric_limits<std::size_t>::max() - image_align) return sketches::status::out_of_memory;
            std::size_t capacity = (static_cast<std::size_t>(size) + image_align - 1) / image_align * image_align;
            fresh.ptr_ = ::operator new(capacity, static_cast<std::align_val_t>(image_align), std::nothrow);
            if (fresh.ptr_ == nullptr) return sketches::status::out_of_memory;
            fresh.size_ = static_cast<std::size_t>(size);
        }
        out = std::move(fresh);
        return sketches::status::ok;
    }

    [[nodiscard]] void *data() noexcept { return ptr_; }
    [[nodiscard]] const void *data() const noexcept { return ptr_; }
    [[nodiscard]] std::size_t size() const noexcept { return size_; }
    /// The image now ends at `size` bytes (at most the current size; the
    /// allocation stays as it is until the object is destroyed).
    void shrink(std::size_t size) noexcept {
        if (size < size_) size_ = size;
    }

  private:
    void release() noexcept {
        if (ptr_ != nullptr) ::operator delete(ptr_, static_cast<std::align_val_t>(image_align));
        ptr_ = nullptr;
        size_ = 0;
    }
    void *ptr_ = nullptr;
    std::size_t size_ = 0;
};

/// A pointer and a length into caller memory (never freed).
template <bool Mutable>
class ref_storage {
  public:
    using pointer = std::conditional_t<Mutable, void *, const void *>;
    static constexpr bool is_owning = false;
    static constexpr bool is_mutable = Mutable;

    constexpr ref_storage() noexcept = default;
    constexpr ref_storage(pointer data, std::size_t size) noexcept : ptr_(data), size_(size) {}
    [[nodiscard]] constexpr pointer data() const noexcept { return ptr_; }
    [[nodiscard]] constexpr std::size_t size() const noexcept { return size_; }
    /// The view now covers the first `size` bytes (at most the current size).
    void shrink(std::size_t size) noexcept {
        if (size < size_) size_ = size;
    }

  private:
    pointer ptr_ = nullptr;
    std::size_t size_ = 0;
};

/// Scratch for a batch: N elements on the stack, the heap beyond.
template <class T, std::size_t N = 64>
class scratch {
  public:
    scratch() noexcept = default;
    scratch(const scratch &) = delete;
    scratch &operator=(const scratch &) = delete;
    sketches::status reserve(std::size_t n) noexcept {
        if (n > N) {
            if (n > std::numeric_limits<std::size_t>::max() / sizeof(T)) return sketches::status::out_of_memory;
            heap_.reset(new (std::nothrow) T[n]);
            if (!heap_) return sketches::status::out_of_memory;
            ptr_ = heap_.get();
        }
        return sketches::status::ok;
    }
    [[nodiscard]] T *data() noexcept { return ptr_; }

  private:
    T local_[N];
    std::unique_ptr<T[]> heap_;
    T *ptr_ = local_;
};

/* Key ranges: a container whose elements are integers (the _u64 forms) or
   convert to byte_view (the _batch forms). Character types and bool are
   not integer keys, nor integers wider than 64 bits (__int128 in the GNU
   dialects): cut to 64 bits, keys differing only in their high half would
   be one key. */
template <class E>
constexpr bool is_integer_key_v =
    std::is_integral_v<E> && sizeof(E) <= sizeof(std::uint64_t) && !std::is_same_v<E, bool> &&
    !std::is_same_v<E, char> &&
    !std::is_same_v<E, signed char> && !std::is_same_v<E, unsigned char> && !std::is_same_v<E, wchar_t> &&
    !std::is_same_v<E, char16_t> && !std::is_same_v<E, char32_t>
#if defined(__cpp_char8_t)
    && !std::is_same_v<E, char8_t>
#endif
    ;

/* An integer key narrower than 64 bits (an int, a std::int32_t): a
   split-block filter in Parquet mode refuses it (see basic_sbbf). */
template <class K>
constexpr bool is_narrow_integer_key_v = is_integer_key_v<K> && sizeof(K) < sizeof(std::uint64_t);
template <class K>
using if_narrow_integer_key = std::enable_if_t<is_narrow_integer_key_v<K>, int>;

/* A single key that is neither bytes nor an integer key: a character, bool
   or floating-point value, or a 128-bit integer, would convert silently to
   the std::uint64_t overload of add/contains/... and be hashed as that
   integer (add('x') added the integer 120, not the key "x"; add(2.5) the
   integer 2; a 128-bit key lost its high half). The members taking a key
   declare a deleted overload for these, so such a call does not compile
   (pass std::string_view(&c, 1), or cast to std::uint64_t, instead). */
#if defined(__SIZEOF_INT128__)
__extension__ typedef __int128 int128_key;
__extension__ typedef unsigned __int128 uint128_key;
#endif
template <class K>
constexpr bool is_refused_key_v = (std::is_arithmetic_v<K> && !is_integer_key_v<K>)
#if defined(__SIZEOF_INT128__)
                                  || std::is_same_v<K, int128_key> || std::is_same_v<K, uint128_key>
#endif
    ;
template <class K>
using if_refused_key = std::enable_if_t<is_refused_key_v<remove_cvref_t<K>>, int>;

/* An integer key other than std::uint64_t (an int, a std::int64_t, a long
   long): the members taking a key take it as it is and widen it to its
   64-bit value themselves, as their batches do, instead of the caller's
   implicit conversion to the std::uint64_t overload, which warns under
   -Wsign-conversion (and clang's -Wconversion) at every call with a signed
   key. Base::checks_narrow_keys (a split-block filter, whose Parquet mode
   refuses keys narrower than 64 bits through its own overload) leaves those
   to the family. */
template <class K, class Base>
constexpr bool is_widened_key_v = is_integer_key_v<K> && !std::is_same_v<K, std::uint64_t> &&
                                  (sizeof(K) == sizeof(std::uint64_t) || !Base::checks_narrow_keys);
template <class K, class Base>
using if_widened_key = std::enable_if_t<is_widened_key_v<K, Base>, int>;

/* A char pointer (or a writable char array) followed by an integer, as in
   C's (key, key_len): hash(s.data(), s.size()) and countmin add(p, n) read
   the pointer as a C string (strlen: past the end of a buffer without a
   NUL) and the length as the seed or the weight, silently. The members and
   functions taking (key, seed) or (key, weight) refuse that pair; a string
   literal still passes (its type is a const array), and a C string variable
   with a seed or weight is written std::string_view(p) (or (p, n) for bytes). */
template <class P>
constexpr bool is_char_pointer_v =
    std::is_same_v<remove_cvref_t<P>, const char *> || std::is_same_v<remove_cvref_t<P>, char *> ||
    (std::is_array_v<std::remove_reference_t<P>> &&
     std::is_same_v<std::remove_extent_t<std::remove_reference_t<P>>, char>);
template <class P, class N>
using if_pointer_and_length = std::enable_if_t<is_char_pointer_v<P> && std::is_integral_v<remove_cvref_t<N>>, int>;

template <class R, class = void>
struct key_range : std::false_type {};
template <class R>
struct key_range<R, std::void_t<decltype(std::begin(std::declval<const R &>())),
                                decltype(std::end(std::declval<const R &>()))>> {
    using reference = decltype(*std::begin(std::declval<const R &>()));
    using element = remove_cvref_t<reference>;
    static constexpr bool integers = is_integer_key_v<element>;
    // As an lvalue: a by-value owning key (std::string, std::array) then
    // counts, for with_keys' "owning temporaries" static_assert to refuse
    // (a byte_view of the rvalue itself does not compile).
    static constexpr bool bytes =
        std::is_convertible_v<reference, byte_view> || std::is_convertible_v<const element &, byte_view>;
    static constexpr bool value = (integers || bytes) && !std::is_convertible_v<const R &, byte_view> &&
                                  !std::is_convertible_v<const R &, packed_view>;
};
template <class R>
constexpr bool is_key_range_v = key_range<R>::value;
template <class R>
using if_keys = std::enable_if_t<is_key_range_v<R>, int>;

/* An iterator known to be single-pass (an input iterator that is not a
   forward one: std::istream_iterator, a subrange of one). A batch iterates
   its keys twice, counting them first, so the second pass of such a range
   saw what the first left (one cached key, or none), and the batch was
   handed uninitialized key slices. An iterator of unknown category (no
   iterator_traits) is not refused here: with_keys checks that both passes
   agree. */
template <class It, class = void>
struct single_pass_iterator : std::false_type {};
#if defined(__cpp_lib_ranges)
template <class It>
struct single_pass_iterator<It, std::enable_if_t<std::input_iterator<It>>>
    : std::bool_constant<!std::forward_iterator<It>> {};
#else
template <class It>
struct single_pass_iterator<It, std::void_t<typename std::iterator_traits<It>::iterator_category>>
    : std::bool_constant<!std::is_base_of_v<std::forward_iterator_tag,
                                            typename std::iterator_traits<It>::iterator_category>> {};
#endif

template <class R>
[[nodiscard]] std::size_t key_count(const R &keys) noexcept {
    static_assert(!single_pass_iterator<decltype(std::begin(keys))>::value,
                  "sketches: a batch reads its keys twice (counts, then reads them): a single-pass range "
                  "(std::istream_iterator) is not a key range; copy the keys into a container first");
    if constexpr (contiguous<const R>::value) {
        return static_cast<std::size_t>(std::size(keys));
    } else {
        // Counted by stepping, as the batch then iterates: std::distance
        // takes only classic iterators, and refused C++20 range iterators
        // such as std::views::iota's (whose difference type is not an
        // integer type) and ranges whose end is a sentinel.
        std::size_t n = 0;
        auto it = std::begin(keys);
        auto last = std::end(keys);
        for (; it != last; ++it) n++;
        return n;
    }
}

/* Optional per-key output: empty means "not wanted" (NULL); otherwise it
   must hold at least n elements. */
template <class T>
[[nodiscard]] sketches::status out_ptr(array_source<T> out, std::size_t n, T *&ptr) noexcept {
    if (out.empty()) {
        ptr = nullptr;
        return sketches::status::ok;
    }
    if (out.size() < n) return sketches::status::buffer_too_small;
    ptr = out.data();
    return sketches::status::ok;
}
/* Required per-key output. */
template <class T>
[[nodiscard]] sketches::status out_required(array_source<T> out, std::size_t n) noexcept {
    return out.size() < n ? sketches::status::buffer_too_small : sketches::status::ok;
}
/* Optional weights: empty means 1 each (NULL); otherwise exactly n. */
[[nodiscard]] inline sketches::status weights_ptr(array_source<const std::uint64_t> w, std::size_t n,
                                                  const std::uint64_t *&ptr) noexcept {
    if (w.empty()) {
        ptr = nullptr;
        return sketches::status::ok;
    }
    if (w.size() != n) return sketches::status::invalid_argument;
    ptr = w.data();
    return sketches::status::ok;
}

/// Stores the `n` keys key_count counted, `put(i, key)` for each, and
/// returns status::invalid_argument (nothing passed to the C call) when the
/// range now yields another number of keys: one whose length changed
/// between the two passes (a view of a container changed meanwhile, or a
/// single-pass range of unknown category) would have written past the
/// scratch or left slices uninitialized.
template <class Keys, class Put>
[[nodiscard]] sketches::status fill_keys(const Keys &keys, std::size_t n, Put &&put) noexcept {
    std::size_t i = 0;
    auto it = std::begin(keys);
    auto last = std::end(keys);
    for (; i < n && it != last; ++it, ++i) put(i, *it);
    return i == n && it == last ? sketches::status::ok : sketches::status::invalid_argument;
}

/// Runs the C batch call for a key range: `slices(const sketch_slice *, n)`
/// for byte keys, `u64(const uint64_t *, n)` for integer keys.
template <class Keys, class SliceFn, class U64Fn>
[[nodiscard]] sketches::status with_keys(const Keys &keys, std::size_t n, SliceFn &&slices, U64Fn &&u64) noexcept {
    using info = key_range<Keys>;
    static_assert(info::value, "sketches: keys must be a container of integers or of byte_view-convertible keys");
    if constexpr (info::integers) {
        using E = typename info::element;
        if constexpr (contiguous<const Keys>::value && sizeof(E) == 8 &&
                      (std::is_same_v<E, std::uint64_t> || std::is_same_v<E, std::int64_t>)) {
            // uint64_t and int64_t may alias each other.
            return st(u64(reinterpret_cast<const std::uint64_t *>(std::data(keys)), n));
        } else {
            scratch<std::uint64_t> buf;
            sketches::status s = buf.reserve(n);
            if (s != sketches::status::ok) return s;
            std::uint64_t *out = buf.data();
            s = fill_keys(keys, n, [out](std::size_t i, const auto &k) { out[i] = static_cast<std::uint64_t>(k); });
            if (s != sketches::status::ok) return s;
            return st(u64(buf.data(), n));
        }
    } else {
        static_assert(std::is_lvalue_reference_v<typename info::reference> ||
                          (std::is_trivially_copyable_v<typename info::element> &&
                           !is_std_array<typename info::element>::value),
                      "sketches: a key range must yield references or views (not owning temporaries)");
        scratch<sketch_slice> buf;
        sketches::status s = buf.reserve(n);
        if (s != sketches::status::ok) return s;
        sketch_slice *out = buf.data();
        s = fill_keys(keys, n, [out](std::size_t i, const auto &k) {
            byte_view b(k);
            out[i] = sketch_slice{b.data(), b.size()};
        });
        if (s != sketches::status::ok) return s;
        return st(slices(buf.data(), n));
    }
}

/// The 8 little-endian bytes an integer key stands for.
[[nodiscard]] inline std::array<unsigned char, 8> le_bytes(std::uint64_t v) noexcept {
    std::array<unsigned char, 8> b{};
    for (std::size_t i = 0; i < 8; i++) b[i] = static_cast<unsigned char>(v >> (8 * i));
    return b;
}

#if SKETCHES_EXCEPTIONS
[[noreturn]] inline void throw_status(sketches::status s, const char *family = nullptr) {
    if (s == sketches::status::out_of_memory) throw std::bad_alloc();
    throw error(s, family);
}
inline void check(sketches::status s, const char *family = nullptr) {
    if (s != sketches::status::ok) throw_status(s, family);
}
template <class T>
[[nodiscard]] T value(result<T> &&r, const char *family = nullptr) {
    check(r.status, family);
    return std::move(r.value);
}
#endif

/// Allocates an owned buffer of `size` bytes and runs `init(buf, len)` on it.
template <class Owned, class Init>
[[nodiscard]] result<Owned> create_owned(result<std::uint64_t> size, Init &&init) noexcept {
    result<Owned> r;
    if (!size.ok()) {
        r.status = size.status;
        return r;
    }
    owned_storage buf;
    r.status = owned_storage::allocate(size.value, buf);
    if (!r.ok()) return r;
    r.status = st(init(buf.data(), buf.size()));
    if (r.ok()) r.value = Owned(adopt, std::move(buf));
    return r;
}

/// Runs `fill(r)`, which fills the standard container of `r`, and reports
/// its allocation failure as status::out_of_memory (value empty) instead of
/// throwing: the try_ forms returning containers never throw. Built with
/// -fno-exceptions, the standard library aborts on that failure instead.
template <class T, class Fill>
[[nodiscard]] result<T> filled(Fill &&fill) noexcept {
    result<T> r;
#if SKETCHES_DETAIL_CAN_CATCH
    try {
        fill(r);
    } catch (const std::bad_alloc &) {
        r.status = sketches::status::out_of_memory;
        r.value = T{};
    } catch (const std::length_error &) {
        r.status = sketches::status::out_of_memory;
        r.value = T{};
    }
#else
    fill(r);
#endif
    return r;
}

/* ---- Streams: one exported image at a time (see "Streams" at the top) ---- */

/// The name of family id `id` ("bloom", ... as sketches::error::family()
/// gives it), or nullptr for an id no family has.
[[nodiscard]] inline const char *family_name(std::uint16_t id) noexcept {
    switch (id) {
    case SKETCH_FAMILY_BLOOM: return "bloom";
    case SKETCH_FAMILY_SPLIT_BLOCK_BLOOM: return "sbbf";
    case SKETCH_FAMILY_COUNTING_BLOOM: return "counting";
    case SKETCH_FAMILY_CUCKOO: return "cuckoo";
    case SKETCH_FAMILY_HYPERLOGLOG: return "hll";
    case SKETCH_FAMILY_ULTRALOGLOG: return "ull";
    case SKETCH_FAMILY_COUNT_MIN: return "countmin";
    case SKETCH_FAMILY_TOPK: return "topk";
    case SKETCH_FAMILY_MINHASH: return "minhash";
    case SKETCH_FAMILY_BINARY_FUSE: return "fuse";
    case SKETCH_FAMILY_EXALOGLOG: return "ell";
    default: return nullptr;
    }
}

/* Offsets of the common header fields the stream functions touch
   themselves (little-endian; SPEC.md section 2): the family id (u16) and the
   hash id (u16) of a header read, the checksum (u64) a zero-copy write
   seals, and the reserved word after it. */
inline constexpr std::size_t off_family = 6;
inline constexpr std::size_t off_hash = 8;
inline constexpr std::size_t off_checksum = 32;
inline constexpr std::size_t off_reserved = 40;

/// The most a stream read allocates before the bytes the header announces
/// have arrived (64 KiB, as in the Go, Java and Python bindings): the buffer
/// starts at this size (or the image's, when smaller) and doubles as bytes
/// arrive, so a forged header announcing a huge length from a short stream
/// costs about three times the bytes that really arrived, never the length.
inline constexpr std::size_t stream_first_read = std::size_t{64} << 10;

[[nodiscard]] inline std::uint64_t load_le(const unsigned char *p, std::size_t bytes) noexcept {
    std::uint64_t v = 0;
    for (std::size_t i = bytes; i > 0; i--) v = v << 8 | p[i - 1];
    return v;
}

/* What a stream threw when its badbit was set (the throwing forms rethrow
   it unchanged); nothing to keep without exceptions. */
#if SKETCHES_DETAIL_CAN_CATCH
using stream_exception = std::exception_ptr;
#else
struct stream_exception {};
#endif

/* The largest count one istream::read / ostream::write takes. */
[[nodiscard]] inline std::size_t stream_chunk(std::size_t n) noexcept {
    constexpr auto most = static_cast<std::make_unsigned_t<std::streamsize>>(std::numeric_limits<std::streamsize>::max());
    return static_cast<std::uint64_t>(n) > most ? static_cast<std::size_t>(most) : n;
}

/* Reads up to `n` bytes into `dst` with istream::read and returns how many
   arrived (fewer at the end of the stream). `failed` is set when the stream
   failed rather than ended: badbit, or failbit without eofbit (a stream in a
   failed state before the call). An exception the stream throws for its
   state (its exceptions() mask) is caught here: the state says what
   happened; the one thrown with badbit is kept in `thrown`. */
[[nodiscard]] inline std::size_t stream_read(std::istream &in, unsigned char *dst, std::size_t n, bool &failed,
                                             stream_exception &thrown) noexcept {
    std::size_t have = 0;
    while (have < n) {
        std::size_t want = stream_chunk(n - have);
        std::streamsize got = 0;
#if SKETCHES_DETAIL_CAN_CATCH
        try {
            in.read(reinterpret_cast<char *>(dst + have), static_cast<std::streamsize>(want));
            got = in.gcount();
        } catch (...) {
            got = in.gcount();
            if (in.bad()) thrown = std::current_exception();
        }
#else
        static_cast<void>(thrown);
        in.read(reinterpret_cast<char *>(dst + have), static_cast<std::streamsize>(want));
        got = in.gcount();
#endif
        if (got > 0) have += static_cast<std::size_t>(got);
        if (in.bad() || (in.fail() && !in.eof())) {
            failed = true;
            return have;
        }
        if (static_cast<std::size_t>(got) < want) return have;
    }
    return have;
}

/* Writes `n` bytes with ostream::write; false when the stream failed (it
   was not good() before, or the write set badbit). An exception the stream
   throws (its exceptions() mask) is caught and kept in `thrown`. */
[[nodiscard]] inline bool stream_write(std::ostream &out, const unsigned char *src, std::size_t n,
                                       stream_exception &thrown) noexcept {
#if SKETCHES_DETAIL_CAN_CATCH
    try {
#else
    static_cast<void>(thrown);
#endif
        do {
            std::size_t chunk = stream_chunk(n);
            out.write(reinterpret_cast<const char *>(src), static_cast<std::streamsize>(chunk));
            src += chunk;
            n -= chunk;
        } while (n > 0 && !out.fail());
#if SKETCHES_DETAIL_CAN_CATCH
    } catch (...) {
        thrown = std::current_exception();
        return false;
    }
#endif
    return !out.fail();
}

/// One exported image's bytes read from a stream, before its family's checks.
struct image_read {
    sketches::status status = sketches::status::ok;
    /// No byte was left: the clean end of the stream.
    bool end = false;
    std::uint64_t bytes_read = 0;
    std::uint64_t image_bytes = 0;
    std::uint16_t family_id = 0;
    /// The image (status ok): exactly image_bytes, aligned to image_align.
    owned_storage bytes;
    stream_exception thrown{};
};

/// Reads exactly one image from `in`: the common header, checked by
/// sketch_image_inspect_header but for its hash id (which the family's import
/// judges with the checksum, as from_bytes does), then exactly the rest of
/// the length it announces, no byte more, into a buffer that grows as the
/// bytes arrive. `want` is the family id the caller expects (0: any known
/// family); another one is status::wrong_family before the body is read.
inline image_read read_image(std::istream &in, std::uint16_t want) noexcept {
    image_read r;
    unsigned char head[SKETCH_COMMON_HEADER_BYTES];
    bool failed = false;
    std::size_t got = stream_read(in, head, sizeof head, failed, r.thrown);
    r.bytes_read = got;
    if (failed) {
        r.status = sketches::status::stream_error;
        r.image_bytes = got == 0 ? 0 : SKETCH_COMMON_HEADER_BYTES;
        return r;
    }
    if (got == 0) {
        r.end = true;
        return r;
    }
    r.image_bytes = SKETCH_COMMON_HEADER_BYTES;
    if (got < sizeof head) {
        r.status = sketches::status::length_mismatch;
        return r;
    }
    r.family_id = static_cast<std::uint16_t>(load_le(head + off_family, 2));
    // The hash id is left to the import (an unknown one is unsupported_hash
    // when the checksum holds and checksum_mismatch when it fails): inspect
    // the header alone in a copy naming XXH3.
    unsigned char probe[SKETCH_COMMON_HEADER_BYTES];
    std::memcpy(probe, head, sizeof probe);
    probe[off_hash] = static_cast<unsigned char>(SKETCH_HASH_XXH3);
    probe[off_hash + 1] = 0;
    sketch_image_info info{};
    sketch_status inspected = sketch_image_inspect_header(probe, sizeof probe, &info);
    if (inspected != SKETCH_OK) {
        r.status = st(inspected);
        return r;
    }
    if (want != 0 && r.family_id != want) {
        r.status = sketches::status::wrong_family;
        return r;
    }
    std::uint64_t size = info.image_bytes;
    r.image_bytes = size;
    std::uint64_t first = size < stream_first_read ? size : stream_first_read;
    r.status = owned_storage::allocate(first, r.bytes);
    if (r.status != sketches::status::ok) return r;
    std::memcpy(r.bytes.data(), head, sizeof head);
    std::uint64_t have = sizeof head;
    while (have < size) {
        if (have == r.bytes.size()) {
            std::uint64_t doubled = 2 * static_cast<std::uint64_t>(r.bytes.size());
            owned_storage grown;
            r.status = owned_storage::allocate(doubled < size ? doubled : size, grown);
            if (r.status != sketches::status::ok) return r;
            std::memcpy(grown.data(), r.bytes.data(), r.bytes.size());
            r.bytes = std::move(grown);
        }
        auto *room = static_cast<unsigned char *>(r.bytes.data()) + static_cast<std::size_t>(have);
        std::size_t want_now = r.bytes.size() - static_cast<std::size_t>(have);
        std::size_t n = stream_read(in, room, want_now, failed, r.thrown);
        have += n;
        r.bytes_read = have;
        if (failed || n < want_now) {
            r.status = failed ? sketches::status::stream_error : sketches::status::length_mismatch;
            r.bytes = owned_storage();
            return r;
        }
    }
    return r;
}

/// Checks an image read from a stream (family Api) as try_from_bytes does
/// (headers, exact length, checksum, body rules) and makes the owning
/// sketch: the read buffer itself when the import would be a copy of it,
/// else (a compact HyperLogLog export) the import into a new buffer.
template <class Api, class Owned>
[[nodiscard]] result<Owned> adopt_image(owned_storage &&bytes) noexcept {
    result<Owned> r;
    std::size_t live = 0;
    r.status = st(Api::verify(bytes.data(), bytes.size()));
    if (r.ok()) r.status = st(Api::import_size(bytes.data(), bytes.size(), &live));
    if (!r.ok()) return r;
    if (live == bytes.size()) {
        r.value = Owned(adopt, std::move(bytes));
        return r;
    }
    return create_owned<Owned>(result<std::uint64_t>{sketches::status::ok, live}, [&](void *buf, std::size_t len) {
        return Api::import_(bytes.data(), bytes.size(), buf, len);
    });
}

/// What read_result::message() says after the status text (see there).
[[nodiscard]] inline std::string stream_detail(sketches::status s, std::uint64_t bytes_read, std::uint64_t image_bytes,
                                               std::uint16_t family_id) {
    switch (s) {
    case sketches::status::length_mismatch:
        if (bytes_read < image_bytes) {
            return "truncated stream: " + std::to_string(bytes_read) + " of " + std::to_string(image_bytes) +
                   " image bytes";
        }
        return std::string();
    case sketches::status::stream_error:
        if (bytes_read == 0 && image_bytes == 0) return "the stream failed before an image's first byte";
        return "the stream failed after " + std::to_string(bytes_read) + " of " + std::to_string(image_bytes) +
               " image bytes";
    case sketches::status::bad_magic:
        return "the stream does not continue with an image";
    case sketches::status::wrong_family:
        if (const char *name = family_name(family_id)) return std::string("the stream holds a ") + name + " image";
        return std::string();
    case sketches::status::corrupt_header:
        if (bytes_read >= SKETCH_COMMON_HEADER_BYTES && family_name(family_id) == nullptr) {
            return "unknown family id " + std::to_string(family_id);
        }
        return std::string();
    default:
        return std::string();
    }
}

/// Copies what a read learned of the stream into its read_result.
template <class T>
void note_read(read_result<T> &r, const image_read &img) noexcept {
    r.bytes_read = img.bytes_read;
    r.image_bytes = img.image_bytes;
    r.family_id = img.family_id;
}

#if SKETCHES_EXCEPTIONS
/// The throwing forms' end of a read: the sketch, std::nullopt at the clean
/// end, or throws: the stream's own exception when it threw one with
/// badbit, std::bad_alloc for out_of_memory, else sketches::error naming
/// `family` with the detail of message().
template <class T>
[[nodiscard]] std::optional<T> read_value(read_result<T> &&r, const stream_exception &thrown, const char *family) {
    if (r.ok()) return std::move(r.value);
    if (r.status == sketches::status::stream_error && thrown) std::rethrow_exception(thrown);
    if (r.status == sketches::status::out_of_memory) throw std::bad_alloc();
    throw error(r.status, family, stream_detail(r.status, r.bytes_read, r.image_bytes, r.family_id));
}
#endif

/// What every family's C API has in common (a family's Api lists its functions).
struct image_hooks {
    /// False for a family without a clear/reset call (the static binary fuse filter).
    static constexpr bool has_clear = true;
    /// True for the families with tokens (Bloom, split-block, HyperLogLog):
    /// their single-key calls pass the object's token (see sketch_token).
    static constexpr bool has_token = false;
    /// True for the split-block filter, whose members check integer keys
    /// narrower than 64 bits against its mode themselves.
    static constexpr bool checks_narrow_keys = false;
    /// Bytes export writes at most (the image length for every family but HLL).
    static result<std::size_t> export_size(const void *, std::size_t len) noexcept { return {sketches::status::ok, len}; }
};

/// A value an object keeps beside its buffer (its token, its hash); with
/// ResetOnMove (owning objects), a move leaves the source's value-initialized.
template <class T, bool ResetOnMove>
struct kept {
    T value{};
};
template <class T>
struct kept<T, true> {
    T value{};
    kept() noexcept = default;
    kept(kept &&other) noexcept : value(std::exchange(other.value, T{})) {}
    kept &operator=(kept &&other) noexcept {
        if (this != &other) value = std::exchange(other.value, T{});
        return *this;
    }
    kept(const kept &) = delete;
    kept &operator=(const kept &) = delete;
};

/// Storage, conversions and the operations every family shares: stats,
/// clear, export/import, verify, clone. Family is the family's template
/// (basic_bloom, ...), Api its C functions.
template <template <class> class Family, class Api, class Storage>
class sketch_base {
  public:
    using storage_type = Storage;
    using owned_type = Family<owned_storage>;
    using view_type = Family<ref_storage<true>>;
    using const_view_type = Family<ref_storage<false>>;
    using stats_type = typename Api::stats;

    static constexpr bool is_owning = Storage::is_owning;
    static constexpr bool is_mutable = Storage::is_mutable;
    /// True when the family has clear() (every family but the binary fuse filter).
    static constexpr bool has_clear = Api::has_clear;
    /// True when the family checks integer keys narrower than 64 bits itself.
    static constexpr bool checks_narrow_keys = Api::checks_narrow_keys;

    /// An owning object without a buffer (also what a move leaves behind,
    /// with an all-zero token), or a null view. Every call on it reports
    /// status::buffer_too_small (NULL with length 0 is an empty buffer to
    /// the C ABI), but clone(), which gives another empty object.
    sketch_base() noexcept = default;
    /// Adopts an allocated buffer (used by the factories).
    sketch_base(adopt_t, owned_storage &&buf) noexcept : storage_(std::move(buf)) { static_cast<void>(refresh_token()); }
    /// A view over `size` bytes of caller memory holding (or about to hold) an
    /// image. Nothing is checked here: every call checks the header (for the
    /// families with tokens, the view takes the image's token when the
    /// memory already holds a valid image; see token()). Like a
    /// std::string_view, a view must not outlive the memory it views.
    /// Reading the header, this is not one of the concurrent members: while
    /// other threads add concurrently, copy a view instead (see Threads).
    template <class S = Storage, std::enable_if_t<!S::is_owning && S::is_mutable, int> = 0>
    sketch_base(void *data, std::size_t size) noexcept : storage_(data, size) {
        static_cast<void>(refresh_token());
    }
    template <class S = Storage, std::enable_if_t<!S::is_owning && !S::is_mutable, int> = 0>
    sketch_base(const void *data, std::size_t size) noexcept : storage_(data, size) {
        static_cast<void>(refresh_token());
    }
    /// A read-only view of a mutable view of the family.
    template <class S2, class S = Storage,
              std::enable_if_t<!S::is_owning && !S::is_mutable && !S2::is_owning && !std::is_same_v<S2, S>, int> = 0>
    sketch_base(const Family<S2> &other) noexcept
        : storage_(other.data(), other.size()), token_{other.token()}, hash_kind_{other.hash_kind()} {}
    /// A read-only view of an owning sketch; it borrows the buffer, so the
    /// sketch must outlive it.
    template <class S = Storage, std::enable_if_t<!S::is_owning && !S::is_mutable, int> = 0>
    sketch_base(const owned_type &other) noexcept
        : storage_(other.data(), other.size()), token_{other.token()}, hash_kind_{other.hash_kind()} {}
    /// Deleted: a read-only view of a temporary owning sketch
    /// (`bloom_const_view v = bloom_filter::from_bytes(b);`) would point into
    /// a buffer freed at the end of the statement, as const_view() would.
    /// The members taking another sketch (merge, intersect, jaccard) take a
    /// temporary owning sketch through their own overload.
    template <class S = Storage, std::enable_if_t<!S::is_owning && !S::is_mutable, int> = 0>
    sketch_base(const owned_type &&other) = delete;
    /// A mutable view of an owning sketch.
    template <class S = Storage, std::enable_if_t<!S::is_owning && S::is_mutable, int> = 0>
    sketch_base(owned_type &other) noexcept
        : storage_(other.data(), other.size()), token_{other.token()}, hash_kind_{other.hash_kind()} {}
    /// A view over memory whose token the caller already holds (view(),
    /// const_view()): nothing is validated.
    template <class S = Storage, std::enable_if_t<!S::is_owning && S::is_mutable, int> = 0>
    sketch_base(with_token_t, void *data, std::size_t size, const sketch_token &token,
                std::uint32_t hash_kind) noexcept
        : storage_(data, size), token_{token}, hash_kind_{hash_kind} {}
    template <class S = Storage, std::enable_if_t<!S::is_owning && !S::is_mutable, int> = 0>
    sketch_base(with_token_t, const void *data, std::size_t size, const sketch_token &token,
                std::uint32_t hash_kind) noexcept
        : storage_(data, size), token_{token}, hash_kind_{hash_kind} {}

    /// The live image bytes (not sealed: use to_bytes to ship them).
    [[nodiscard]] const void *data() const noexcept { return storage_.data(); }
    template <class S = Storage, std::enable_if_t<S::is_mutable, int> = 0>
    [[nodiscard]] void *data() noexcept {
        return storage_.data();
    }
    /// Length of the buffer in bytes (the image length for owning objects,
    /// but after a view of one folded its split-block image: see fold).
    [[nodiscard]] std::size_t size() const noexcept { return storage_.size(); }
    /// The live bytes as a byte_view into the buffer. Deleted on a temporary
    /// owning object, as view() is: the buffer dies with the statement.
    [[nodiscard]] byte_view bytes() const & noexcept { return byte_view(storage_.data(), storage_.size()); }
    template <class S = Storage, std::enable_if_t<!S::is_owning, int> = 0>
    [[nodiscard]] byte_view bytes() const && noexcept {
        return byte_view(storage_.data(), storage_.size());
    }
    template <class S = Storage, std::enable_if_t<S::is_owning, int> = 0>
    byte_view bytes() const && = delete;
    /// The image's token (sketch_token), taken when the object got its
    /// image: the single-key add/contains of the families with tokens pass
    /// it so the C call skips the header validation. All zero for families
    /// without tokens, for a view made over memory that did not hold a valid
    /// image yet, and after refresh_token() failed. A token that no longer
    /// matches (the memory was re-initialized or imported into behind the
    /// object's back) only makes those calls validate in full, as without it.
    [[nodiscard]] const sketch_token &token() const noexcept { return token_.value; }
    /// The image's hash (SKETCH_HASH_XXH3, or SKETCH_HASH_XXH64 for a
    /// Parquet-mode split-block filter) read when the token was taken; 0
    /// when the token is all zero. Like the token, it describes the image
    /// as of then: after re-initializing a view's memory behind its back,
    /// call refresh_token().
    [[nodiscard]] std::uint32_t hash_kind() const noexcept { return hash_kind_.value; }
    /// Takes the token again from the image in the buffer (after writing a
    /// different image into a view's memory with a C call). Returns the
    /// status of sketch_<family>_token (status::ok for families without
    /// tokens); on failure the token is all zero.
    sketches::status refresh_token() noexcept {
        token_.value = sketch_token{};
        hash_kind_.value = 0;
        if constexpr (Api::has_token) {
            if (size() == 0) return sketches::status::buffer_too_small;
            sketch_token t{};
            sketches::status s = st(Api::token(data(), size(), &t));
            if (s != sketches::status::ok) return s;
            token_.value = t;
            sketch_image_info info{};
            if (sketch_image_inspect(data(), size(), &info) == SKETCH_OK) hash_kind_.value = info.hash;
            return s;
        } else {
            return sketches::status::ok;
        }
    }

    /// A read-only view of this image, with its token; it borrows the
    /// buffer, so this object must outlive it (like std::string_view). On a
    /// temporary owning object (`bloom_filter::create(...).const_view()`)
    /// it is deleted: the buffer would be freed at the end of the statement.
    [[nodiscard]] const_view_type const_view() const & noexcept {
        return const_view_type(with_token, data(), size(), token_.value, hash_kind_.value);
    }
    template <class S = Storage, std::enable_if_t<!S::is_owning, int> = 0>
    [[nodiscard]] const_view_type const_view() const && noexcept {
        return const_view_type(with_token, data(), size(), token_.value, hash_kind_.value);
    }
    template <class S = Storage, std::enable_if_t<S::is_owning, int> = 0>
    const_view_type const_view() const && = delete;
    /// A mutable view of this image, with its token; borrows the buffer as
    /// const_view() does (deleted on a temporary owning object).
    template <class S = Storage, std::enable_if_t<S::is_mutable, int> = 0>
    [[nodiscard]] view_type view() & noexcept {
        return view_type(with_token, storage_.data(), storage_.size(), token_.value, hash_kind_.value);
    }
    template <class S = Storage, std::enable_if_t<S::is_mutable && !S::is_owning, int> = 0>
    [[nodiscard]] view_type view() && noexcept {
        return view_type(with_token, storage_.data(), storage_.size(), token_.value, hash_kind_.value);
    }
    template <class S = Storage, std::enable_if_t<S::is_mutable && S::is_owning, int> = 0>
    view_type view() && = delete;

    /// All statistics (see the C struct).
    result<stats_type> try_stats() const noexcept {
        result<stats_type> r;
        r.status = st(Api::get_stats(data(), size(), &r.value));
        return r;
    }
    /// Empties the sketch; parameters and seed stay.
    template <class A = Api, std::enable_if_t<A::has_clear, int> = 0>
    sketches::status try_clear() noexcept {
        return st(A::clear(mdata(), size()));
    }
    /// Exports (copy + checksum) into `out`; the value is the byte count.
    result<std::size_t> try_export_to(void *out, std::size_t out_len) const noexcept {
        result<std::size_t> r;
        r.status = st(Api::export_(data(), size(), out, out_len, &r.value));
        return r;
    }
    /// The exported image (what from_bytes and every binding read);
    /// status::out_of_memory when the vector cannot be allocated (see
    /// detail::filled; try_export_to into your own buffer allocates nothing).
    result<std::vector<std::uint8_t>> try_to_bytes() const noexcept {
        return filled<std::vector<std::uint8_t>>([&](result<std::vector<std::uint8_t>> &r) {
            result<std::size_t> n = Api::export_size(data(), size());
            if (!n.ok()) {
                r.status = n.status;
                return;
            }
            r.value.resize(n.value);
            result<std::size_t> w = try_export_to(r.value.data(), r.value.size());
            r.status = w.status;
            r.value.resize(w.ok() ? w.value : 0);
        });
    }
    /// An owning copy of the live image: the image's length as its header
    /// records it, not the rest of a view's larger buffer (the whole buffer
    /// when the header cannot be read; the copy then reports the error).
    result<owned_type> try_clone() const noexcept {
        result<owned_type> r;
        std::size_t len = size();
        sketch_image_info info{};
        if (sketch_image_inspect(data(), size(), &info) == SKETCH_OK && info.image_bytes < len) {
            len = static_cast<std::size_t>(info.image_bytes);
        }
        owned_storage buf;
        r.status = owned_storage::allocate(len, buf);
        if (!r.ok()) return r;
        if (len > 0) std::memcpy(buf.data(), data(), len);
        r.value = owned_type(adopt, std::move(buf));
        return r;
    }
    /// Checks untrusted bytes in place (headers, exact length, checksum).
    static sketches::status try_verify(byte_source bytes) noexcept { return st(Api::verify(bytes.data(), bytes.size())); }
    /// Verifies untrusted bytes and gives the live size they import into
    /// (their length, except for a compact HyperLogLog image): what to
    /// allocate for from_bytes into caller memory.
    static result<std::uint64_t> try_import_size(byte_source bytes) noexcept {
        result<std::uint64_t> r;
        r.status = st(Api::verify(bytes.data(), bytes.size()));
        std::size_t live = 0;
        if (r.ok()) r.status = st(Api::import_size(bytes.data(), bytes.size(), &live));
        if (r.ok()) r.value = live;
        return r;
    }
    /// Imports untrusted bytes into a new owning sketch. The bytes are
    /// verified before anything is allocated.
    static result<owned_type> try_from_bytes(byte_source bytes) noexcept {
        return create_owned<owned_type>(try_import_size(bytes), [&](void *buf, std::size_t len) {
            return Api::import_(bytes.data(), bytes.size(), buf, len);
        });
    }
    /// Imports untrusted bytes into caller memory (8-byte aligned, `len`
    /// bytes, written only on success) and returns a view of it.
    static result<view_type> try_from_bytes(byte_source bytes, void *buf, std::size_t len) noexcept {
        result<view_type> r;
        r.status = st(Api::import_(bytes.data(), bytes.size(), buf, len));
        if (r.ok()) r.value = view_type(buf, len);
        return r;
    }

    /// Writes the exported image to `out` (the bytes to_bytes() gives: the
    /// live image with its checksum, compact for a small HyperLogLog) with
    /// std::ostream::write, and returns their count. The bytes are written
    /// from the live image, with a 48-byte copy of the header carrying the
    /// checksum: no copy of the image is made (but of a compact HyperLogLog
    /// export). Errors: the live image's, as to_bytes gives them (nothing is
    /// written then); status::stream_error when the stream is not good()
    /// before the write or fails during it (badbit; how many bytes it took
    /// is then unknown: discard what it holds). The stream is not flushed: a
    /// buffered stream may report a device error only at flush(), so check
    /// the stream after flushing before trusting the bytes delivered. An
    /// exception the stream throws (its exceptions() mask) is reported as
    /// status::stream_error. Thread-safety: a const member (reads the image;
    /// no concurrent adds meanwhile); one stream must not be used by two
    /// threads at once.
    result<std::size_t> try_write_to(std::ostream &out) const noexcept {
        stream_exception thrown{};
        return write_image(out, thrown);
    }
    /// Reads exactly one exported image of this family from `in` (a file, a
    /// socket's stream, a std::stringstream of several images written one
    /// after another) into a new owning sketch: the 48-byte common header,
    /// then exactly the rest of the image length it announces, never a byte
    /// more, so the next read starts at the next image. The announced length
    /// is untrusted: the buffer starts at 64 KiB (or the image's length,
    /// when smaller) and doubles as bytes arrive, so a forged header
    /// announcing a huge image from a short stream costs about three times
    /// the bytes that arrived and ends in a truncated-stream error. The
    /// image is then checked exactly as try_from_bytes checks it (headers,
    /// exact length, checksum, body rules; a compact HyperLogLog export is
    /// imported into its full image) and kept in its read buffer, aligned
    /// to image_align, without a copy.
    /// Outcomes: value std::nullopt with status::ok at a clean end of the
    /// stream (no byte left, or a stream already at its end); status::
    /// length_mismatch when the stream ends inside the image ("truncated
    /// stream: X of Y image bytes", see read_result::message());
    /// bad_magic, unsupported_version or corrupt_header (an unknown family
    /// id included) for a header that is no image's, and wrong_family for
    /// another family's image, both before the body is read; the statuses
    /// of try_from_bytes for a damaged image (checksum_mismatch, ...);
    /// out_of_memory; stream_error when the stream fails (badbit, or
    /// failbit without its end: a stream in a failed state). The stream's
    /// exceptions() mask does not change these outcomes (an exception it
    /// throws is caught and its state read). After an error the stream
    /// stands inside the refused image: read no further images from it.
    /// Thread-safety: keeps no state; one stream must not be read by two
    /// threads at once.
    static read_result<owned_type> try_read_from(std::istream &in) noexcept {
        stream_exception thrown{};
        return read_from_stream(in, thrown);
    }

#if SKETCHES_EXCEPTIONS
    /// try_write_to, throwing: the byte count written; sketches::error on
    /// failure (status::stream_error for the stream's), or the stream's own
    /// exception unchanged when it threw one (its exceptions() mask).
    std::size_t write_to(std::ostream &out) const {
        stream_exception thrown{};
        result<std::size_t> r = write_image(out, thrown);
        if (r.status == sketches::status::stream_error && thrown) std::rethrow_exception(thrown);
        return value(std::move(r));
    }
    /// try_read_from, throwing: the sketch, or std::nullopt at a clean end
    /// of the stream (`while (auto s = bloom_filter::read_from(in))` reads
    /// every image of a stream of Bloom filters). Throws sketches::error
    /// with the status try_read_from gives and what() "<family>: <status
    /// text>: <detail>" ("bloom: ...: truncated stream: 100 of 4096 image
    /// bytes"), std::bad_alloc for out_of_memory, or the stream's own
    /// exception unchanged when it threw one for badbit.
    [[nodiscard]] static std::optional<owned_type> read_from(std::istream &in) {
        stream_exception thrown{};
        return detail::read_value(read_from_stream(in, thrown), thrown, Api::family);
    }
    [[nodiscard]] stats_type stats() const { return value(try_stats()); }
    template <class A = Api, std::enable_if_t<A::has_clear, int> = 0>
    void clear() {
        check(try_clear());
    }
    std::size_t export_to(void *out, std::size_t out_len) const { return value(try_export_to(out, out_len)); }
    [[nodiscard]] std::vector<std::uint8_t> to_bytes() const { return value(try_to_bytes()); }
    [[nodiscard]] owned_type clone() const { return value(try_clone()); }
    static void verify(byte_source bytes) { check(try_verify(bytes)); }
    [[nodiscard]] static std::uint64_t import_size(byte_source bytes) { return value(try_import_size(bytes)); }
    [[nodiscard]] static owned_type from_bytes(byte_source bytes) { return value(try_from_bytes(bytes)); }
    [[nodiscard]] static view_type from_bytes(byte_source bytes, void *buf, std::size_t len) {
        return value(try_from_bytes(bytes, buf, len));
    }
#endif

  protected:
    /// try_write_to's body; `thrown` receives what the stream threw.
    result<std::size_t> write_image(std::ostream &out, stream_exception &thrown) const noexcept {
        result<std::size_t> r;
        std::size_t exported = 0;
        r.status = st(Api::exported_size(data(), size(), &exported));
        sketch_image_info info{};
        if (r.ok()) r.status = st(sketch_image_inspect(data(), size(), &info));
        if (!r.ok()) return r;
        bool written = false;
        if (exported == info.image_bytes && exported >= SKETCH_COMMON_HEADER_BYTES) {
            // The export is the live image with its checksum written: the
            // format's rule (XXH3-64 of the bytes after the checksum field,
            // seeded with XXH3-64 seed 0 of the bytes before it), computed
            // in place; only the header is copied.
            const auto *image = static_cast<const unsigned char *>(data());
            unsigned char head[SKETCH_COMMON_HEADER_BYTES];
            std::memcpy(head, image, sizeof head);
            std::uint64_t sum = sketch_hash(image + off_reserved, exported - off_reserved,
                                            sketch_hash(image, off_checksum, 0));
            for (std::size_t i = 0; i < 8; i++) head[off_checksum + i] = static_cast<unsigned char>(sum >> (8 * i));
            written = stream_write(out, head, sizeof head, thrown) &&
                      stream_write(out, image + sizeof head, exported - sizeof head, thrown);
        } else {
            // A compact export (a small HyperLogLog): made into a buffer.
            result<std::vector<std::uint8_t>> bytes = try_to_bytes();
            if (!bytes.ok()) {
                r.status = bytes.status;
                return r;
            }
            exported = bytes.value.size();
            written = stream_write(out, bytes.value.data(), exported, thrown);
        }
        if (!written) {
            r.status = sketches::status::stream_error;
            return r;
        }
        r.value = exported;
        return r;
    }
    /// try_read_from's body; `thrown` receives what the stream threw with badbit.
    static read_result<owned_type> read_from_stream(std::istream &in, stream_exception &thrown) noexcept {
        read_result<owned_type> r;
        image_read img = read_image(in, Api::family_id);
        note_read(r, img);
        thrown = img.thrown;
        if (img.end) return r;
        r.status = img.status;
        if (!r.ok()) return r;
        result<owned_type> sketch = adopt_image<Api, owned_type>(std::move(img.bytes));
        r.status = sketch.status;
        if (sketch.ok()) r.value = std::move(sketch.value);
        return r;
    }
#if SKETCHES_EXCEPTIONS
    /// The throwing forms' checks: a sketches::error naming the family.
    static void check(sketches::status s) { detail::check(s, Api::family); }
    template <class T>
    [[nodiscard]] static T value(result<T> &&r) {
        return detail::value(std::move(r), Api::family);
    }
#endif
    /// Checks a batch's key type against the image before the call:
    /// status::ok here; a family hides it to refuse keys its mode would
    /// hash wrongly (a Parquet-mode split-block filter).
    template <class Keys>
    sketches::status check_keys() const noexcept {
        return sketches::status::ok;
    }
    /// Runs `call(src, src_len)`, a merge-like C call reading `src` into
    /// this image; when `src` shares this buffer (a.merge(a), or a view of
    /// a's memory), on a copy of it, so the result is that of merging an
    /// equal sketch (the C call refuses overlapping buffers, status::overlap).
    template <class Call>
    sketches::status merge_source(const void *src, std::size_t src_len, Call &&call) noexcept {
        std::less<const unsigned char *> before;
        const auto *s = static_cast<const unsigned char *>(src);
        const auto *d = static_cast<const unsigned char *>(data());
        if (s == nullptr || d == nullptr || src_len == 0 || size() == 0 || !before(s, d + size()) ||
            !before(d, s + src_len)) {
            return st(call(src, src_len));
        }
        owned_storage copy;
        sketches::status r = owned_storage::allocate(src_len, copy);
        if (r != sketches::status::ok) return r;
        std::memcpy(copy.data(), src, src_len);
        return st(call(static_cast<const void *>(copy.data()), src_len));
    }
    /// After a call that shortened the image in place (a split-block fold):
    /// the object covers its first `size` bytes, with the token taken again.
    void shrink_image(std::size_t size) noexcept {
        storage_.shrink(size);
        static_cast<void>(refresh_token());
    }
    /// The buffer for a call that changes the sketch.
    void *mdata() noexcept {
        static_assert(Storage::is_mutable,
                      "sketches: this operation changes the sketch; it is not available on a *_const_view");
        if constexpr (Storage::is_mutable) {
            return storage_.data();
        } else {
            return nullptr;
        }
    }
    /* `v` is read after both arguments are evaluated, so make(call(&x), x)
       sees what the call wrote. */
    template <class T>
    static result<T> make(sketch_status s, const T &v) noexcept {
        result<T> r;
        r.status = st(s);
        if (r.ok()) r.value = v;
        return r;
    }

  private:
    Storage storage_;
    // An owning object's move leaves the source's token and hash zero, as
    // its buffer is empty (a view's copy keeps them, as it keeps the memory).
    kept<sketch_token, Storage::is_owning> token_;
    kept<std::uint32_t, Storage::is_owning> hash_kind_;
};

/// `init` on caller memory, returning a view of it.
template <class View, class Init>
[[nodiscard]] result<View> init_view(void *buf, std::size_t len, Init &&init) noexcept {
    result<View> r;
    r.status = st(init());
    if (r.ok()) r.value = View(buf, len);
    return r;
}

} // namespace detail

template <class T>
std::string read_result<T>::message() const {
    std::string detail = detail::stream_detail(this->status, bytes_read, image_bytes, family_id);
    return detail.empty() ? std::string(status_text(this->status)) : status_text(this->status) + (": " + detail);
}

/* ------------------------------------------------------------------ */
/* Free functions: hashing, version, inspection                         */
/* ------------------------------------------------------------------ */

/// The canonical hash of a byte key (XXH3-64 with `seed`): what every
/// family's *_hash operations take, with the image's seed.
[[nodiscard]] inline std::uint64_t hash(byte_source key, std::uint64_t seed = 0) noexcept {
    return sketch_hash(key.data(), key.size(), seed);
}
/// Deleted: hash(p, n) with a char pointer hashed the C string at p with
/// seed n; write hash(byte_view(p, n)) (see detail::is_char_pointer_v).
template <class P, class N, detail::if_pointer_and_length<P, N> = 0>
void hash(P &&, N) = delete;
/// The canonical hash of an integer key (its 8 little-endian bytes).
[[nodiscard]] inline std::uint64_t hash(std::uint64_t key, std::uint64_t seed = 0) noexcept {
    return sketch_hash_u64(key, seed);
}
/// The same for any other integer key (an int, a std::int64_t: its 64-bit
/// value, without a -Wsign-conversion warning at the call).
template <class K, std::enable_if_t<detail::is_integer_key_v<K> && !std::is_same_v<K, std::uint64_t>, int> = 0>
[[nodiscard]] std::uint64_t hash(K key, std::uint64_t seed = 0) noexcept {
    return sketch_hash_u64(static_cast<std::uint64_t>(key), seed);
}
/// Deleted: a character, bool, floating-point or 128-bit argument is
/// neither a byte key nor a 64-bit integer key (see detail::is_refused_key_v).
template <class K, detail::if_refused_key<K> = 0, class... A>
void hash(K, A...) = delete;
/// XXH64 of a byte key: what split-block filters in Parquet mode take (seed
/// 0, over a fixed-width value's Parquet PLAIN encoding or a BYTE_ARRAY's raw
/// bytes without the PLAIN length prefix; see the parquet_hash_* functions).
[[nodiscard]] inline std::uint64_t hash_xxh64(byte_source key, std::uint64_t seed = 0) noexcept {
    return sketch_hash_xxh64(key.data(), key.size(), seed);
}
/// Deleted: a char pointer and a length (see hash).
template <class P, class N, detail::if_pointer_and_length<P, N> = 0>
void hash_xxh64(P &&, N) = delete;
/// Parquet's bloom filter hash of an INT32 value: XXH64 seed 0 of its PLAIN
/// encoding (4 little-endian bytes), as Parquet writers insert it. Pass it to
/// the *_hash members of a split-block filter in Parquet mode.
[[nodiscard]] inline std::uint64_t parquet_hash_i32(std::int32_t value) noexcept { return sketch_parquet_hash_i32(value); }
/// Parquet's hash of an INT64 value (8 little-endian bytes).
[[nodiscard]] inline std::uint64_t parquet_hash_i64(std::int64_t value) noexcept { return sketch_parquet_hash_i64(value); }
/// Parquet's hash of a FLOAT value: its raw IEEE-754 bits, as writers hash
/// them (-0.0 and +0.0 differ, each NaN bit pattern is its own value).
[[nodiscard]] inline std::uint64_t parquet_hash_float(float value) noexcept { return sketch_parquet_hash_float(value); }
/// Parquet's hash of a DOUBLE value (raw IEEE-754 bits, 8 little-endian bytes).
[[nodiscard]] inline std::uint64_t parquet_hash_double(double value) noexcept { return sketch_parquet_hash_double(value); }
/// Parquet's hash of a BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY value (a string's
/// UTF-8 bytes), without the length prefix of the PLAIN encoding.
[[nodiscard]] inline std::uint64_t parquet_hash_bytes(byte_source value) noexcept {
    return sketch_parquet_hash_bytes(value.data(), value.size());
}

/// How a Parquet writer sizes a column's bitset (SKETCH_PARQUET_SIZING_*),
/// for sbbf_filter::plan_parquet: the parquet crate, DuckDB, or Arrow C++
/// (pyarrow; it rounds the bit count up to a power of two first).
enum class parquet_sizing : std::uint32_t {
    parquet_rs = SKETCH_PARQUET_SIZING_PARQUET_RS,
    duckdb = SKETCH_PARQUET_SIZING_DUCKDB,
    arrow_cpp = SKETCH_PARQUET_SIZING_ARROW_CPP,
};

/// Hashes a container of keys (or packed keys) into `out` (at least as many values).
template <class Keys, detail::if_keys<Keys> = 0>
status try_hash_batch(const Keys &keys, std::uint64_t seed, array_source<std::uint64_t> out) noexcept {
    std::size_t n = detail::key_count(keys);
    status s = detail::out_required(out, n);
    if (s != status::ok) return s;
    return detail::with_keys(
        keys, n, [&](const sketch_slice *k, std::size_t c) { return sketch_hash_batch(k, c, seed, out.data()); },
        [&](const std::uint64_t *k, std::size_t c) { return sketch_hash_u64_batch(k, c, seed, out.data()); });
}
inline status try_hash_batch(const packed_source &keys, std::uint64_t seed, array_source<std::uint64_t> out) noexcept {
    status s = detail::out_required(out, keys.count);
    if (s != status::ok) return s;
    return detail::st(sketch_hash_packed(keys.data, keys.data_len, keys.offsets, keys.count, seed, out.data()));
}
/// The run-time library version, major * 10000 + minor * 100 + patch.
[[nodiscard]] inline std::uint32_t version() noexcept { return sketch_version(); }
[[nodiscard]] inline const char *version_string() noexcept { return sketch_version_string(); }
/// Reads the common header of any image (to dispatch on its family).
[[nodiscard]] inline result<image_info> try_inspect(byte_source bytes) noexcept {
    result<image_info> r;
    r.status = detail::st(sketch_image_inspect(bytes.data(), bytes.size(), &r.value));
    return r;
}
/// Reads the common header from the first 48 bytes alone
/// (sketch_image_inspect_header): what a reader of a file or socket holds
/// before the rest has arrived. image_bytes is the length the header
/// records, which a damaged or hostile header may make huge: bound it before
/// reading that much. status::buffer_too_small below 48 bytes; the header
/// errors of try_inspect otherwise.
[[nodiscard]] inline result<image_info> try_inspect_header(byte_source bytes) noexcept {
    result<image_info> r;
    r.status = detail::st(sketch_image_inspect_header(bytes.data(), bytes.size(), &r.value));
    return r;
}
#if SKETCHES_EXCEPTIONS
template <class Keys, detail::if_keys<Keys> = 0>
[[nodiscard]] std::vector<std::uint64_t> hash_batch(const Keys &keys, std::uint64_t seed = 0) {
    std::vector<std::uint64_t> out(detail::key_count(keys));
    detail::check(try_hash_batch(keys, seed, out));
    return out;
}
[[nodiscard]] inline std::vector<std::uint64_t> hash_batch(const packed_source &keys, std::uint64_t seed = 0) {
    std::vector<std::uint64_t> out(keys.count);
    detail::check(try_hash_batch(keys, seed, out));
    return out;
}
[[nodiscard]] inline image_info inspect(byte_source bytes) { return detail::value(try_inspect(bytes)); }
[[nodiscard]] inline image_info inspect_header(byte_source bytes) {
    return detail::value(try_inspect_header(bytes));
}
#endif

/* Declares, inside a family template, the single-key and batch operations
   of the families: adds (test-and-insert where the C call reports it),
   contains, for byte keys, integers and hashes, single and batch. NAME is
   the C++ operation (add, contains, remove, add_concurrent,
   contains_concurrent) and CFN its C function (sketch_bloom_add, ...), whose
   _u64, _hash, _batch, _u64_batch, _packed and _hash_batch forms the
   members call. */

/* The deleted overload of the single-key member NAME for the argument types
   detail::is_refused_key_v refuses (characters, bool, floating point, 128-bit
   integers), which would otherwise convert silently to its std::uint64_t
   overload; CONST is `const` for the queries. */
#define SKETCHES_DETAIL_REFUSE_KEYS(NAME, CONST)                                                               \
    template <class K, detail::if_refused_key<K> = 0, class... A>                                              \
    void NAME(K, A...) CONST = delete;                                                                         \
    SKETCHES_DETAIL_WIDEN_KEYS(NAME, CONST)

/* The overload of the single-key member NAME for integer keys other than
   std::uint64_t (see detail::is_widened_key_v): the key's 64-bit value. */
#define SKETCHES_DETAIL_WIDEN_KEYS(NAME, CONST)                                                                \
    template <class K, detail::if_widened_key<K, base> = 0>                                                   \
    decltype(auto) NAME(K key) CONST noexcept(noexcept(NAME(std::uint64_t{}))) {                              \
        return NAME(static_cast<std::uint64_t>(key));                                                          \
    }

/* SKETCHES_DETAIL_REFUSE_KEYS for a (key, weight) member (Count-Min and
   Top-k add). */
#define SKETCHES_DETAIL_REFUSE_WEIGHTED_KEYS(NAME)                                                             \
    template <class K, detail::if_refused_key<K> = 0, class... A>                                              \
    void NAME(K, A...) = delete;                                                                               \
    SKETCHES_DETAIL_WIDEN_WEIGHTED_KEYS(NAME)

/* The same for a (key, weight) member (Count-Min and Top-k add). */
#define SKETCHES_DETAIL_WIDEN_WEIGHTED_KEYS(NAME)                                                              \
    template <class K, detail::if_widened_key<K, base> = 0>                                                   \
    decltype(auto) NAME(K key, weight_value weight = 1) noexcept(noexcept(NAME(std::uint64_t{}, weight_value{1}))) { \
        return NAME(static_cast<std::uint64_t>(key), weight);                                                  \
    }

/* The deleted overload of a (key, weight) member for a char pointer and a
   length (see detail::is_char_pointer_v). */
#define SKETCHES_DETAIL_REFUSE_POINTER_AND_LENGTH(NAME)                                                        \
    template <class P, class N, detail::if_pointer_and_length<P, N> = 0>                                       \
    void NAME(P &&, N) = delete;

/* Single-key queries: NAME(key), NAME(integer), NAME_hash(hash). */
#define SKETCHES_DETAIL_CONTAINS_OPS(NAME, CFN)                                                                \
    SKETCHES_DETAIL_REFUSE_KEYS(try_##NAME, const)                                                             \
    result<bool> try_##NAME(byte_source key) const noexcept {                                                  \
        bool out = false;                                                                                      \
        return this->make(CFN(this->data(), this->size(), key.data(), key.size(), &out), out);                 \
    }                                                                                                          \
    result<bool> try_##NAME(std::uint64_t key) const noexcept {                                                \
        bool out = false;                                                                                      \
        return this->make(CFN##_u64(this->data(), this->size(), key, &out), out);                              \
    }                                                                                                          \
    result<bool> try_##NAME##_hash(std::uint64_t hash) const noexcept {                                        \
        bool out = false;                                                                                      \
        return this->make(CFN##_hash(this->data(), this->size(), hash, &out), out);                            \
    }                                                                                                          \
    SKETCHES_DETAIL_CONTAINS_BATCH_OPS(NAME, CFN)

/* The single-key contains of the families with tokens: the object's token
   lets the C call skip the header validation. */
#define SKETCHES_DETAIL_CONTAINS_TOKEN_OPS(PREFIX)                                                             \
    SKETCHES_DETAIL_REFUSE_KEYS(try_contains, const)                                                           \
    result<bool> try_contains(byte_source key) const noexcept {                                                \
        bool out = false;                                                                                      \
        return this->make(PREFIX##_contains_with_token(this->data(), this->size(), &this->token(), key.data(), \
                                                       key.size(), &out),                                      \
                          out);                                                                                \
    }                                                                                                          \
    result<bool> try_contains(std::uint64_t key) const noexcept {                                              \
        bool out = false;                                                                                      \
        return this->make(PREFIX##_contains_u64_with_token(this->data(), this->size(), &this->token(), key, &out), \
                          out);                                                                                \
    }                                                                                                          \
    result<bool> try_contains_hash(std::uint64_t hash) const noexcept {                                        \
        bool out = false;                                                                                      \
        return this->make(                                                                                     \
            PREFIX##_contains_hash_with_token(this->data(), this->size(), &this->token(), hash, &out), out);   \
    }                                                                                                          \
    SKETCHES_DETAIL_CONTAINS_BATCH_OPS(contains, PREFIX##_contains)

/* The batch queries: NAME_batch(keys | packed, results), NAME_hash_batch. */
#define SKETCHES_DETAIL_CONTAINS_BATCH_OPS(NAME, CFN)                                                          \
    template <class Keys, detail::if_keys<Keys> = 0>                                                           \
    status try_##NAME##_batch(const Keys &keys, array_source<bool> results) const noexcept {                   \
        std::size_t n = detail::key_count(keys);                                                               \
        status s = detail::out_required(results, n);                                                           \
        if (s == status::ok) s = this->template check_keys<Keys>();                                            \
        if (s != status::ok) return s;                                                                         \
        return detail::with_keys(                                                                              \
            keys, n,                                                                                           \
            [&](const sketch_slice *k, std::size_t c) {                                                        \
                return CFN##_batch(this->data(), this->size(), k, c, results.data());                          \
            },                                                                                                 \
            [&](const std::uint64_t *k, std::size_t c) {                                                       \
                return CFN##_u64_batch(this->data(), this->size(), k, c, results.data());                      \
            });                                                                                                \
    }                                                                                                          \
    status try_##NAME##_batch(const packed_source &keys, array_source<bool> results) const noexcept {          \
        status s = detail::out_required(results, keys.count);                                                  \
        if (s != status::ok) return s;                                                                         \
        return detail::st(CFN##_packed(this->data(), this->size(), keys.data, keys.data_len, keys.offsets,     \
                                       keys.count, results.data()));                                           \
    }                                                                                                          \
    status try_##NAME##_hash_batch(array_source<const std::uint64_t> hashes, array_source<bool> results)       \
        const noexcept {                                                                                       \
        status s = detail::out_required(results, hashes.size());                                               \
        if (s != status::ok) return s;                                                                         \
        return detail::st(CFN##_hash_batch(this->data(), this->size(), hashes.data(), hashes.size(), results.data())); \
    }

/* Throwing forms of the queries. */
#define SKETCHES_DETAIL_CONTAINS_THROWING(NAME)                                                                \
    SKETCHES_DETAIL_REFUSE_KEYS(NAME, const)                                                                   \
    [[nodiscard]] bool NAME(byte_source key) const { return base::value(try_##NAME(key)); }                    \
    [[nodiscard]] bool NAME(std::uint64_t key) const { return base::value(try_##NAME(key)); }                  \
    [[nodiscard]] bool NAME##_hash(std::uint64_t hash) const { return base::value(try_##NAME##_hash(hash)); }   \
    template <class Keys, detail::if_keys<Keys> = 0>                                                           \
    void NAME##_batch(const Keys &keys, array_source<bool> results) const {                                    \
        base::check(try_##NAME##_batch(keys, results));                                                        \
    }                                                                                                          \
    void NAME##_batch(const packed_source &keys, array_source<bool> results) const {                           \
        base::check(try_##NAME##_batch(keys, results));                                                        \
    }                                                                                                          \
    void NAME##_hash_batch(array_source<const std::uint64_t> hashes, array_source<bool> results) const {       \
        base::check(try_##NAME##_hash_batch(hashes, results));                                                 \
    }                                                                                                          \
    template <class Keys, detail::if_keys<Keys> = 0>                                                           \
    [[nodiscard]] std::vector<bool> NAME##_batch(const Keys &keys) const {                                     \
        std::size_t n = detail::key_count(keys);                                                               \
        detail::scratch<bool> out;                                                                             \
        base::check(out.reserve(n));                                                                           \
        base::check(try_##NAME##_batch(keys, array_view<bool>(out.data(), n)));                                \
        return std::vector<bool>(out.data(), out.data() + n);                                                  \
    }                                                                                                          \
    [[nodiscard]] std::vector<bool> NAME##_batch(const packed_source &keys) const {                            \
        detail::scratch<bool> out;                                                                             \
        base::check(out.reserve(keys.count));                                                                  \
        base::check(try_##NAME##_batch(keys, array_view<bool>(out.data(), keys.count)));                       \
        return std::vector<bool>(out.data(), out.data() + keys.count);                                         \
    }                                                                                                          \
    [[nodiscard]] std::vector<bool> NAME##_hash_batch(array_source<const std::uint64_t> hashes) const {        \
        detail::scratch<bool> out;                                                                             \
        base::check(out.reserve(hashes.size()));                                                               \
        base::check(try_##NAME##_hash_batch(hashes, array_view<bool>(out.data(), hashes.size())));             \
        return std::vector<bool>(out.data(), out.data() + hashes.size());                                      \
    }

/* Batch adds over keys (containers, packed) with a per-key bool output
   (was_new, changed, removed, added); REQUIRED says whether the C call
   requires the output array (else NULL is allowed). */
#define SKETCHES_DETAIL_KEY_BATCH_BOOL_OPS(NAME, CFN, REQUIRED)                                                \
    template <class Keys, detail::if_keys<Keys> = 0>                                                           \
    status try_##NAME##_batch(const Keys &keys, array_source<bool> out = {}) noexcept {                        \
        std::size_t n = detail::key_count(keys);                                                               \
        bool *ptr = nullptr;                                                                                   \
        detail::scratch<bool> tmp;                                                                             \
        status s = this->template check_keys<Keys>();                                                          \
        if (s == status::ok) s = REQUIRED && out.empty() ? tmp.reserve(n) : detail::out_ptr(out, n, ptr);      \
        if (s != status::ok) return s;                                                                         \
        if (REQUIRED && out.empty()) ptr = tmp.data();                                                         \
        void *buf = this->mdata();                                                                             \
        return detail::with_keys(                                                                              \
            keys, n, [&](const sketch_slice *k, std::size_t c) { return CFN##_batch(buf, this->size(), k, c, ptr); }, \
            [&](const std::uint64_t *k, std::size_t c) { return CFN##_u64_batch(buf, this->size(), k, c, ptr); }); \
    }                                                                                                          \
    status try_##NAME##_batch(const packed_source &keys, array_source<bool> out = {}) noexcept {               \
        bool *ptr = nullptr;                                                                                   \
        detail::scratch<bool> tmp;                                                                             \
        status s = REQUIRED && out.empty() ? tmp.reserve(keys.count) : detail::out_ptr(out, keys.count, ptr);  \
        if (s != status::ok) return s;                                                                         \
        if (REQUIRED && out.empty()) ptr = tmp.data();                                                         \
        return detail::st(                                                                                     \
            CFN##_packed(this->mdata(), this->size(), keys.data, keys.data_len, keys.offsets, keys.count, ptr)); \
    }

/* The same plus the hash batch: PREFIX is the C prefix, CNAME the C operation. */
#define SKETCHES_DETAIL_BATCH_BOOL_OPS(PREFIX, NAME, CNAME, REQUIRED)                                          \
    SKETCHES_DETAIL_KEY_BATCH_BOOL_OPS(NAME, PREFIX##_##CNAME, REQUIRED)                                       \
    status try_##NAME##_hash_batch(array_source<const std::uint64_t> hashes, array_source<bool> out = {}) noexcept { \
        bool *ptr = nullptr;                                                                                   \
        detail::scratch<bool> tmp;                                                                             \
        status s = REQUIRED && out.empty() ? tmp.reserve(hashes.size()) : detail::out_ptr(out, hashes.size(), ptr); \
        if (s != status::ok) return s;                                                                         \
        if (REQUIRED && out.empty()) ptr = tmp.data();                                                         \
        return detail::st(                                                                                     \
            PREFIX##_##CNAME##_hash_batch(this->mdata(), this->size(), hashes.data(), hashes.size(), ptr));    \
    }

#define SKETCHES_DETAIL_KEY_BATCH_BOOL_THROWING(NAME)                                                          \
    template <class Keys, detail::if_keys<Keys> = 0>                                                           \
    void NAME##_batch(const Keys &keys, array_source<bool> out = {}) {                                         \
        base::check(try_##NAME##_batch(keys, out));                                                            \
    }                                                                                                          \
    void NAME##_batch(const packed_source &keys, array_source<bool> out = {}) {                                \
        base::check(try_##NAME##_batch(keys, out));                                                            \
    }

#define SKETCHES_DETAIL_BATCH_BOOL_THROWING(NAME)                                                              \
    SKETCHES_DETAIL_KEY_BATCH_BOOL_THROWING(NAME)                                                              \
    void NAME##_hash_batch(array_source<const std::uint64_t> hashes, array_source<bool> out = {}) {            \
        base::check(try_##NAME##_hash_batch(hashes, out));                                                     \
    }

/* Batch adds over keys without per-key outputs (HLL, ULL, MinHash, ELL). */
#define SKETCHES_DETAIL_KEY_BATCH_PLAIN_OPS(NAME, CFN)                                                         \
    template <class Keys, detail::if_keys<Keys> = 0>                                                           \
    status try_##NAME##_batch(const Keys &keys) noexcept {                                                     \
        std::size_t n = detail::key_count(keys);                                                               \
        void *buf = this->mdata();                                                                             \
        return detail::with_keys(                                                                              \
            keys, n, [&](const sketch_slice *k, std::size_t c) { return CFN##_batch(buf, this->size(), k, c); }, \
            [&](const std::uint64_t *k, std::size_t c) { return CFN##_u64_batch(buf, this->size(), k, c); });  \
    }                                                                                                          \
    status try_##NAME##_batch(const packed_source &keys) noexcept {                                            \
        return detail::st(                                                                                     \
            CFN##_packed(this->mdata(), this->size(), keys.data, keys.data_len, keys.offsets, keys.count));    \
    }

/* The same for add, plus add_hash_batch. */
#define SKETCHES_DETAIL_BATCH_PLAIN_OPS(PREFIX)                                                                \
    SKETCHES_DETAIL_KEY_BATCH_PLAIN_OPS(add, PREFIX##_add)                                                     \
    status try_add_hash_batch(array_source<const std::uint64_t> hashes) noexcept {                             \
        return detail::st(PREFIX##_add_hash_batch(this->mdata(), this->size(), hashes.data(), hashes.size())); \
    }

#define SKETCHES_DETAIL_KEY_BATCH_PLAIN_THROWING(NAME)                                                         \
    template <class Keys, detail::if_keys<Keys> = 0>                                                           \
    void NAME##_batch(const Keys &keys) {                                                                      \
        base::check(try_##NAME##_batch(keys));                                                                 \
    }                                                                                                          \
    void NAME##_batch(const packed_source &keys) { base::check(try_##NAME##_batch(keys)); }

#define SKETCHES_DETAIL_BATCH_PLAIN_THROWING                                                                   \
    SKETCHES_DETAIL_KEY_BATCH_PLAIN_THROWING(add)                                                              \
    void add_hash_batch(array_source<const std::uint64_t> hashes) { base::check(try_add_hash_batch(hashes)); }

/* Single adds reporting a bool (was_new / changed): NAME(key),
   NAME(integer), NAME_hash(hash). */
#define SKETCHES_DETAIL_ADD_BOOL_OPS(NAME, CFN)                                                                \
    SKETCHES_DETAIL_REFUSE_KEYS(try_##NAME, )                                                                  \
    result<bool> try_##NAME(byte_source key) noexcept {                                                        \
        bool out = false;                                                                                      \
        return this->make(CFN(this->mdata(), this->size(), key.data(), key.size(), &out), out);                \
    }                                                                                                          \
    result<bool> try_##NAME(std::uint64_t key) noexcept {                                                      \
        bool out = false;                                                                                      \
        return this->make(CFN##_u64(this->mdata(), this->size(), key, &out), out);                             \
    }                                                                                                          \
    result<bool> try_##NAME##_hash(std::uint64_t hash) noexcept {                                              \
        bool out = false;                                                                                      \
        return this->make(CFN##_hash(this->mdata(), this->size(), hash, &out), out);                           \
    }

/* Single adds reporting a bool, for the families with tokens. */
#define SKETCHES_DETAIL_ADD_BOOL_TOKEN_OPS(PREFIX)                                                             \
    SKETCHES_DETAIL_REFUSE_KEYS(try_add, )                                                                     \
    result<bool> try_add(byte_source key) noexcept {                                                           \
        bool out = false;                                                                                      \
        return this->make(                                                                                     \
            PREFIX##_add_with_token(this->mdata(), this->size(), &this->token(), key.data(), key.size(), &out), \
            out);                                                                                              \
    }                                                                                                          \
    result<bool> try_add(std::uint64_t key) noexcept {                                                         \
        bool out = false;                                                                                      \
        return this->make(PREFIX##_add_u64_with_token(this->mdata(), this->size(), &this->token(), key, &out), out); \
    }                                                                                                          \
    result<bool> try_add_hash(std::uint64_t hash) noexcept {                                                   \
        bool out = false;                                                                                      \
        return this->make(PREFIX##_add_hash_with_token(this->mdata(), this->size(), &this->token(), hash, &out), \
                          out);                                                                                \
    }

#define SKETCHES_DETAIL_ADD_BOOL_THROWING(NAME)                                                                \
    SKETCHES_DETAIL_REFUSE_KEYS(NAME, )                                                                        \
    bool NAME(byte_source key) { return base::value(try_##NAME(key)); }                                        \
    bool NAME(std::uint64_t key) { return base::value(try_##NAME(key)); }                                      \
    bool NAME##_hash(std::uint64_t hash) { return base::value(try_##NAME##_hash(hash)); }

/* Concurrent adds and queries (sketch_{bloom,sbbf,hll,ull}_*_concurrent*):
   any number of threads may call these members on one image at once (the
   C calls use atomic operations on its aligned 64-bit words); while any of
   them runs, no other member may touch that image. They never use the
   object's token (nothing in the object is written), and they need the
   image 8-byte aligned (status::misaligned otherwise; owned sketches are).
   The filters': */
#define SKETCHES_DETAIL_CONCURRENT_FILTER_OPS(PREFIX)                                                          \
    SKETCHES_DETAIL_ADD_BOOL_OPS(add_concurrent, PREFIX##_add_concurrent)                                      \
    SKETCHES_DETAIL_KEY_BATCH_BOOL_OPS(add_concurrent, PREFIX##_add_concurrent, false)                         \
    SKETCHES_DETAIL_CONTAINS_OPS(contains_concurrent, PREFIX##_contains_concurrent)                            \
    result<std::uint32_t> try_capacity_flags_concurrent() const noexcept {                                    \
        std::uint32_t flags = 0;                                                                               \
        return this->make(PREFIX##_capacity_concurrent(this->data(), this->size(), &flags), flags);           \
    }

#define SKETCHES_DETAIL_CONCURRENT_FILTER_THROWING                                                             \
    SKETCHES_DETAIL_ADD_BOOL_THROWING(add_concurrent)                                                          \
    SKETCHES_DETAIL_KEY_BATCH_BOOL_THROWING(add_concurrent)                                                    \
    SKETCHES_DETAIL_CONTAINS_THROWING(contains_concurrent)                                                     \
    /** capacity_flags read with atomic loads while other threads add (exact once they are done; a flag can  \
        show an add or two late). Same cost as capacity_flags. */                                             \
    [[nodiscard]] std::uint32_t capacity_flags_concurrent() const {                                            \
        return base::value(try_capacity_flags_concurrent());                                                   \
    }                                                                                                          \
    /** over_capacity read with atomic loads while other threads add. */                                       \
    [[nodiscard]] bool over_capacity_concurrent() const { return capacity_flags_concurrent() != 0; }

/* The distinct counters' (the value of a single add: the sketch changed). */
#define SKETCHES_DETAIL_CONCURRENT_COUNTER_OPS(PREFIX)                                                         \
    SKETCHES_DETAIL_ADD_BOOL_OPS(add_concurrent, PREFIX##_add_concurrent)                                      \
    SKETCHES_DETAIL_KEY_BATCH_PLAIN_OPS(add_concurrent, PREFIX##_add_concurrent)                               \
    /** Register estimate read with atomic loads while other threads add (exact once they are done). */        \
    result<double> try_estimate_concurrent() const noexcept {                                                  \
        double out = 0;                                                                                        \
        return this->make(PREFIX##_estimate_concurrent(this->data(), this->size(), &out), out);                \
    }

#define SKETCHES_DETAIL_CONCURRENT_COUNTER_THROWING                                                            \
    SKETCHES_DETAIL_ADD_BOOL_THROWING(add_concurrent)                                                          \
    SKETCHES_DETAIL_KEY_BATCH_PLAIN_THROWING(add_concurrent)                                                   \
    [[nodiscard]] double estimate_concurrent() const { return base::value(try_estimate_concurrent()); }

/* The bloom-like families' shared parts: capacity flags. */
#define SKETCHES_DETAIL_CAPACITY_OPS(PREFIX)                                                                   \
    result<std::uint32_t> try_capacity_flags() const noexcept {                                               \
        std::uint32_t flags = 0;                                                                               \
        return this->make(PREFIX##_capacity(this->data(), this->size(), &flags), flags);                      \
    }

#define SKETCHES_DETAIL_CAPACITY_THROWING                                                                      \
    /** SKETCH_CAPACITY_* bits, 0 while within the plan. O(1) for Bloom, counting and cuckoo filters; a     \
        split-block filter sums a short series, and one loaded from a Parquet bitset (from_parquet_bitset,     \
        load_parquet_bitset) reads every block on each call (O(size)): call it once per loaded filter. */      \
    [[nodiscard]] std::uint32_t capacity_flags() const { return base::value(try_capacity_flags()); }          \
    /** True once the filter is past what it was planned for (cost as capacity_flags). */                      \
    [[nodiscard]] bool over_capacity() const { return capacity_flags() != 0; }

/* Merge-like calls (dst, dst_len, src, src_len). */
/* `other` is any sketch of the family: a view, or an owning sketch, also a
   temporary one (which lives until the call returns), through the second
   overload (a read-only view of a temporary owning sketch does not compile).
   `other` may be this sketch itself (a.merge(a)) or a view of its memory:
   the call then merges a copy of it, as an equal sketch would merge. */
#define SKETCHES_DETAIL_MERGE_OP(NAME, CFUNC)                                                                  \
    status try_##NAME(const const_view_type &other) noexcept {                                                \
        void *buf = this->mdata();                                                                             \
        return this->merge_source(other.data(), other.size(), [&](const void *src, std::size_t src_len) {     \
            return CFUNC(buf, this->size(), src, src_len);                                                     \
        });                                                                                                    \
    }                                                                                                          \
    status try_##NAME(const owned_type &other) noexcept { return try_##NAME(other.const_view()); }
#define SKETCHES_DETAIL_MERGE_THROWING(NAME)                                                                   \
    void NAME(const const_view_type &other) { base::check(try_##NAME(other)); }                               \
    void NAME(const owned_type &other) { base::check(try_##NAME(other)); }

/* The type names of a family template. */
#define SKETCHES_DETAIL_FAMILY_TYPES                                                                           \
    using base::base;                                                                                          \
    using typename base::const_view_type;                                                                      \
    using typename base::owned_type;                                                                           \
    using typename base::view_type;

/* ------------------------------------------------------------------ */
/* Families                                                             */
/* ------------------------------------------------------------------ */

template <class Storage>
class basic_bloom;
template <class Storage>
class basic_sbbf;
template <class Storage>
class basic_counting;
template <class Storage>
class basic_cuckoo;
template <class Storage>
class basic_hll;
template <class Storage>
class basic_ull;
template <class Storage>
class basic_countmin;
template <class Storage>
class basic_topk;
template <class Storage>
class basic_minhash;
template <class Storage>
class basic_fuse;
template <class Storage>
class basic_ell;

namespace detail {
#define SKETCHES_DETAIL_API(NAME, PREFIX, STATS, CLEAR, FAMILY, ID)                                            \
    struct NAME : image_hooks {                                                                                \
        static constexpr const char *family = FAMILY;                                                          \
        static constexpr std::uint16_t family_id = ID;                                                         \
        using stats = STATS;                                                                                   \
        static constexpr auto get_stats = &PREFIX##_get_stats;                                                 \
        static constexpr auto clear = &PREFIX##_##CLEAR;                                                       \
        static constexpr auto export_ = &PREFIX##_export;                                                      \
        static constexpr auto exported_size = &PREFIX##_exported_size;                                         \
        static constexpr auto import_ = &PREFIX##_import;                                                      \
        static constexpr auto verify = &PREFIX##_verify;                                                       \
        static constexpr auto import_size = &PREFIX##_import_size;                                             \
    };
SKETCHES_DETAIL_API(bloom_api_base, sketch_bloom, sketch_bloom_stats, clear, "bloom", SKETCH_FAMILY_BLOOM)
SKETCHES_DETAIL_API(sbbf_api_base, sketch_sbbf, sketch_sbbf_stats, clear, "sbbf", SKETCH_FAMILY_SPLIT_BLOCK_BLOOM)
struct bloom_api : bloom_api_base {
    static constexpr bool has_token = true;
    static constexpr auto token = &sketch_bloom_token;
};
struct sbbf_api : sbbf_api_base {
    static constexpr bool has_token = true;
    static constexpr bool checks_narrow_keys = true;
    static constexpr auto token = &sketch_sbbf_token;
};
SKETCHES_DETAIL_API(counting_api, sketch_counting, sketch_counting_stats, clear, "counting", SKETCH_FAMILY_COUNTING_BLOOM)
SKETCHES_DETAIL_API(cuckoo_api, sketch_cuckoo, sketch_cuckoo_stats, clear, "cuckoo", SKETCH_FAMILY_CUCKOO)
SKETCHES_DETAIL_API(ull_api, sketch_ull, sketch_ull_stats, reset, "ull", SKETCH_FAMILY_ULTRALOGLOG)
SKETCHES_DETAIL_API(countmin_api, sketch_countmin, sketch_countmin_stats, clear, "countmin", SKETCH_FAMILY_COUNT_MIN)
SKETCHES_DETAIL_API(topk_api, sketch_topk, sketch_topk_stats, clear, "topk", SKETCH_FAMILY_TOPK)
SKETCHES_DETAIL_API(minhash_api, sketch_minhash, sketch_minhash_stats, clear, "minhash", SKETCH_FAMILY_MINHASH)
SKETCHES_DETAIL_API(ell_api, sketch_ell, sketch_ell_stats, reset, "ell", SKETCH_FAMILY_EXALOGLOG)
#undef SKETCHES_DETAIL_API

/* The binary fuse filter is static: built once, no clear. */
struct fuse_api : image_hooks {
    static constexpr const char *family = "fuse";
    static constexpr std::uint16_t family_id = SKETCH_FAMILY_BINARY_FUSE;
    static constexpr bool has_clear = false;
    using stats = sketch_fuse_stats;
    static constexpr auto get_stats = &sketch_fuse_get_stats;
    static constexpr auto export_ = &sketch_fuse_export;
    static constexpr auto exported_size = &sketch_fuse_exported_size;
    static constexpr auto import_ = &sketch_fuse_import;
    static constexpr auto verify = &sketch_fuse_verify;
    static constexpr auto import_size = &sketch_fuse_import_size;
};

/* HyperLogLog exports small-mode sketches compactly, so its export size
   differs from the live length (sketch_hll_import_size gives the live size a
   compact image imports into). */
struct hll_api {
    static constexpr const char *family = "hll";
    static constexpr std::uint16_t family_id = SKETCH_FAMILY_HYPERLOGLOG;
    static constexpr bool has_clear = true;
    static constexpr bool checks_narrow_keys = false;
    using stats = sketch_hll_stats;
    static constexpr auto get_stats = &sketch_hll_get_stats;
    static constexpr auto clear = &sketch_hll_reset;
    static constexpr auto export_ = &sketch_hll_export;
    static constexpr auto import_ = &sketch_hll_import;
    static constexpr auto verify = &sketch_hll_verify;
    static constexpr auto exported_size = &sketch_hll_exported_size;
    static result<std::size_t> export_size(const void *buf, std::size_t len) noexcept {
        result<std::size_t> r;
        r.status = st(sketch_hll_exported_size(buf, len, &r.value));
        return r;
    }
    static constexpr auto import_size = &sketch_hll_import_size;
    static constexpr bool has_token = true;
    static constexpr auto token = &sketch_hll_token;
};
} // namespace detail

/* ---------------- Bloom filter ---------------- */

/// Classic Bloom filter (sketch_bloom_*).
/// Factories: plan(items, fpr), plan_bits(bits, hashes), image_size(params),
/// create(params | items, fpr [, seed]), init(buf, len, params [, seed]).
/// Keys: add(key) -> was_new, contains(key), add_hash / contains_hash(hash);
/// batches: add_batch(keys [, was_new]) and contains_batch(keys [, results])
/// over containers of keys, integers or packed_keys, add_hash_batch /
/// contains_hash_batch(hashes). merge (union), intersect, capacity_flags,
/// over_capacity. Concurrent adds and queries from many threads at once:
/// add_concurrent, add_concurrent_hash, add_concurrent_batch,
/// contains_concurrent, contains_concurrent_hash, contains_concurrent_batch,
/// contains_concurrent_hash_batch, capacity_flags_concurrent,
/// over_capacity_concurrent (see Threads at the top). Shared by every
/// family: stats, clear, to_bytes / export_to / write_to,
/// from_bytes / read_from / import_size / verify, clone, data / size / bytes, view /
/// const_view; every operation also has a try_ form.
template <class Storage>
class basic_bloom : public detail::sketch_base<basic_bloom, detail::bloom_api, Storage> {
    using base = detail::sketch_base<basic_bloom, detail::bloom_api, Storage>;

  public:
    SKETCHES_DETAIL_FAMILY_TYPES
    using params_type = bloom_params;

    /// Plans m and k for `items` distinct items at false-positive rate `fpr`.
    static result<bloom_params> try_plan(std::uint64_t items, double fpr) noexcept {
        result<bloom_params> r;
        r.status = detail::st(sketch_bloom_plan(items, fpr, &r.value));
        return r;
    }
    /// Explicit bits and probes.
    static result<bloom_params> try_plan_bits(std::uint64_t bits, std::uint32_t hashes) noexcept {
        result<bloom_params> r;
        r.status = detail::st(sketch_bloom_plan_bits(bits, hashes, &r.value));
        return r;
    }
    /// Exact image size in bytes (a multiple of image_align).
    static result<std::uint64_t> try_image_size(const bloom_params &params) noexcept {
        result<std::uint64_t> r;
        r.status = detail::st(sketch_bloom_size(&params, &r.value));
        return r;
    }
    /// A new empty filter in its own aligned buffer.
    static result<owned_type> try_create(const bloom_params &params, std::uint64_t seed = 0) noexcept {
        return detail::create_owned<owned_type>(try_image_size(params), [&](void *buf, std::size_t len) {
            return sketch_bloom_init(buf, len, &params, seed);
        });
    }
    /// Plans for `items` at `fpr` and creates the filter.
    static result<owned_type> try_create(std::uint64_t items, double fpr, std::uint64_t seed = 0) noexcept {
        result<bloom_params> p = try_plan(items, fpr);
        if (!p.ok()) return result<owned_type>{p.status, {}};
        return try_create(p.value, seed);
    }
    /// Writes an empty filter into caller memory (8-byte aligned, at least
    /// image_size bytes) and returns a view of it.
    static result<view_type> try_init(void *buf, std::size_t len, const bloom_params &params,
                                      std::uint64_t seed = 0) noexcept {
        return detail::init_view<view_type>(buf, len, [&] { return sketch_bloom_init(buf, len, &params, seed); });
    }

    SKETCHES_DETAIL_ADD_BOOL_TOKEN_OPS(sketch_bloom)
    SKETCHES_DETAIL_CONTAINS_TOKEN_OPS(sketch_bloom)
    SKETCHES_DETAIL_BATCH_BOOL_OPS(sketch_bloom, add, add, false)
    SKETCHES_DETAIL_CONCURRENT_FILTER_OPS(sketch_bloom)
    SKETCHES_DETAIL_CAPACITY_OPS(sketch_bloom)
    /// Union (dst |= src): equal bits, probes and seed.
    SKETCHES_DETAIL_MERGE_OP(merge, sketch_bloom_union)
    /// Intersection (dst &= src).
    SKETCHES_DETAIL_MERGE_OP(intersect, sketch_bloom_intersect)

#if SKETCHES_EXCEPTIONS
    [[nodiscard]] static bloom_params plan(std::uint64_t items, double fpr) { return base::value(try_plan(items, fpr)); }
    [[nodiscard]] static bloom_params plan_bits(std::uint64_t bits, std::uint32_t hashes) {
        return base::value(try_plan_bits(bits, hashes));
    }
    [[nodiscard]] static std::uint64_t image_size(const bloom_params &params) {
        return base::value(try_image_size(params));
    }
    [[nodiscard]] static owned_type create(const bloom_params &params, std::uint64_t seed = 0) {
        return base::value(try_create(params, seed));
    }
    [[nodiscard]] static owned_type create(std::uint64_t items, double fpr, std::uint64_t seed = 0) {
        return base::value(try_create(items, fpr, seed));
    }
    [[nodiscard]] static view_type init(void *buf, std::size_t len, const bloom_params &params, std::uint64_t seed = 0) {
        return base::value(try_init(buf, len, params, seed));
    }
    /// Adds a key; true when it was new (some probed bit was unset).
    SKETCHES_DETAIL_ADD_BOOL_THROWING(add)
    SKETCHES_DETAIL_CONTAINS_THROWING(contains)
    SKETCHES_DETAIL_BATCH_BOOL_THROWING(add)
    SKETCHES_DETAIL_CONCURRENT_FILTER_THROWING
    SKETCHES_DETAIL_CAPACITY_THROWING
    SKETCHES_DETAIL_MERGE_THROWING(merge)
    SKETCHES_DETAIL_MERGE_THROWING(intersect)
#endif
};
using bloom_filter = basic_bloom<detail::owned_storage>;
using bloom_view = basic_bloom<detail::ref_storage<true>>;
using bloom_const_view = basic_bloom<detail::ref_storage<false>>;

/* ---------------- Split-block Bloom filter ---------------- */

/// Split-block Bloom filter (sketch_sbbf_*): one cache line per key; Parquet
/// mode is byte-identical to Parquet writers' bitsets (its keys are the
/// bytes Parquet hashes: a fixed-width value's PLAIN encoding, a BYTE_ARRAY's
/// raw bytes without the length prefix; its hash is hash_xxh64 with seed 0).
/// As bloom_filter (plan, plan_parquet(ndv, fpp), plan_blocks(blocks, mode),
/// add / contains and their batches, the concurrent adds and queries, merge,
/// intersect, capacity flags), plus bitset(): the blocks, pointing into the
/// buffer. Parquet interop: plan_parquet(ndv, fpp, parquet_sizing) sizes as a
/// given writer does, fold(n) / fold_to_target_fpp(fpp) shrink the filter in
/// place as writers do before writing, from_parquet_bitset(bytes, fpr) /
/// load_parquet_bitset make a filter of a bitset read out of a file; the
/// parquet_hash_* functions hash typed values as writers do. In Parquet mode
/// a 64-bit integer key hashes as an INT64 (its 8 bytes); an integer key
/// narrower than 64 bits (f.add(42), an int32_t, a batch of them: an INT32
/// column's values) is refused with status::invalid_argument, nothing
/// changed: use parquet_hash_i32 and the _hash forms (or std::int64_t{v}
/// for an INT64 column).
/// Shared by every family: stats, clear, to_bytes / export_to / write_to,
/// from_bytes / read_from / import_size / verify, clone, data / size / bytes, view /
/// const_view; every operation also has a try_ form.
template <class Storage>
class basic_sbbf : public detail::sketch_base<basic_sbbf, detail::sbbf_api, Storage> {
    using base = detail::sketch_base<basic_sbbf, detail::sbbf_api, Storage>;

  public:
    SKETCHES_DETAIL_FAMILY_TYPES
    using params_type = sbbf_params;

    /// Native mode, planned for `items` at `fpr`.
    static result<sbbf_params> try_plan(std::uint64_t items, double fpr) noexcept {
        result<sbbf_params> r;
        r.status = detail::st(sketch_sbbf_plan(items, fpr, &r.value));
        return r;
    }
    /// Parquet mode, sized as Parquet writers size a column's bitset.
    static result<sbbf_params> try_plan_parquet(std::uint64_t ndv, double fpp) noexcept {
        result<sbbf_params> r;
        r.status = detail::st(sketch_sbbf_plan_parquet(ndv, fpp, &r.value));
        return r;
    }
    /// Parquet mode, sized as the given writer sizes a column's bitset for
    /// `ndv` distinct values at `fpp`. Writers that fold before writing (the
    /// parquet crate, Arrow C++) shrink the filter afterwards: call
    /// fold_to_target_fpp(fpp) after the adds to get their bytes.
    static result<sbbf_params> try_plan_parquet(std::uint64_t ndv, double fpp, parquet_sizing sizing) noexcept {
        result<sbbf_params> r;
        r.status = detail::st(sketch_sbbf_plan_parquet_sizing(ndv, fpp, static_cast<std::uint32_t>(sizing), &r.value));
        return r;
    }
    /// Parquet-mode parameters for a bitset of `bitset_len` bytes read out of
    /// a Parquet file (a positive multiple of 32), planned for the most items
    /// at which that size still meets `fpr` (status::invalid_argument for a
    /// bad length, status::invalid_parameter for fpr).
    static result<sbbf_params> try_plan_parquet_bitset(std::size_t bitset_len, double fpr) noexcept {
        result<sbbf_params> r;
        r.status = detail::st(sketch_sbbf_plan_parquet_bitset(bitset_len, fpr, &r.value));
        return r;
    }
    /// A new Parquet-mode filter whose blocks are a copy of `bitset` (the
    /// bytes after a column chunk's BloomFilterHeader): it answers as the
    /// file's filter does and can be added to, merged, folded and exported.
    /// Its capacity signal follows the fill of the blocks (an all-ones bitset
    /// is over capacity). Errors as try_plan_parquet_bitset.
    static result<owned_type> try_from_parquet_bitset(byte_source bitset, double fpr) noexcept {
        result<sbbf_params> p = try_plan_parquet_bitset(bitset.size(), fpr);
        if (!p.ok()) return result<owned_type>{p.status, {}};
        return detail::create_owned<owned_type>(try_image_size(p.value), [&](void *buf, std::size_t len) {
            return sketch_sbbf_load_parquet_bitset(buf, len, bitset.data(), bitset.size(), &p.value);
        });
    }
    /// As try_from_parquet_bitset, into caller memory (8-byte aligned, at
    /// least image_size(params) bytes, written only on success) with
    /// `params` from try_plan_parquet_bitset.
    static result<view_type> try_load_parquet_bitset(void *buf, std::size_t len, byte_source bitset,
                                                     const sbbf_params &params) noexcept {
        return detail::init_view<view_type>(
            buf, len, [&] { return sketch_sbbf_load_parquet_bitset(buf, len, bitset.data(), bitset.size(), &params); });
    }
    /// Halves the block count `folds` times in place (OR-ing adjacent
    /// blocks, as Parquet writers shrink an under-filled filter); every key
    /// stays present. The object then covers the shorter image (size(),
    /// bitset(), to_bytes()); other objects over the same memory (the owner
    /// of a view that folded, other views) keep their longer size() and
    /// answer for the folded image, whose bytes to_bytes() and clone() give.
    /// status::invalid_argument when the block count is not divisible by
    /// 2^folds; nothing changes on error.
    template <class S = Storage, std::enable_if_t<S::is_mutable, int> = 0>
    sketches::status try_fold(std::uint32_t folds) noexcept {
        std::size_t new_len = 0;
        sketches::status s = detail::st(sketch_sbbf_fold(this->mdata(), this->size(), folds, &new_len));
        if (s == sketches::status::ok) this->shrink_image(new_len);
        return s;
    }
    /// Folds as far as the parquet crate and Arrow C++ (pyarrow) fold before
    /// writing with target rate `fpp` (the most halvings whose estimated rate
    /// stays within it); the value is how many. status::invalid_parameter,
    /// nothing changed, for `fpp` outside (0, 1) (NaN included). As try_fold
    /// otherwise.
    template <class S = Storage, std::enable_if_t<S::is_mutable, int> = 0>
    result<std::uint32_t> try_fold_to_target_fpp(double fpp) noexcept {
        result<std::uint32_t> r;
        std::size_t new_len = 0;
        r.status = detail::st(sketch_sbbf_fold_to_target_fpp(this->mdata(), this->size(), fpp, &r.value, &new_len));
        if (r.ok()) {
            this->shrink_image(new_len);
        } else {
            r.value = 0;
        }
        return r;
    }
    /// Explicit block count in SKETCH_SBBF_NATIVE or SKETCH_SBBF_PARQUET mode.
    static result<sbbf_params> try_plan_blocks(std::uint64_t blocks, std::uint32_t mode) noexcept {
        result<sbbf_params> r;
        r.status = detail::st(sketch_sbbf_plan_blocks(blocks, mode, &r.value));
        return r;
    }
    static result<std::uint64_t> try_image_size(const sbbf_params &params) noexcept {
        result<std::uint64_t> r;
        r.status = detail::st(sketch_sbbf_size(&params, &r.value));
        return r;
    }
    /// A new empty filter (Parquet mode requires seed 0).
    static result<owned_type> try_create(const sbbf_params &params, std::uint64_t seed = 0) noexcept {
        return detail::create_owned<owned_type>(try_image_size(params), [&](void *buf, std::size_t len) {
            return sketch_sbbf_init(buf, len, &params, seed);
        });
    }
    static result<owned_type> try_create(std::uint64_t items, double fpr, std::uint64_t seed = 0) noexcept {
        result<sbbf_params> p = try_plan(items, fpr);
        if (!p.ok()) return result<owned_type>{p.status, {}};
        return try_create(p.value, seed);
    }
    static result<view_type> try_init(void *buf, std::size_t len, const sbbf_params &params,
                                      std::uint64_t seed = 0) noexcept {
        return detail::init_view<view_type>(buf, len, [&] { return sketch_sbbf_init(buf, len, &params, seed); });
    }
    /// The blocks (Parquet's bitset in Parquet mode), pointing into this
    /// buffer; deleted on a temporary owning filter (`make_filter().bitset()`),
    /// whose buffer dies with the statement.
    result<byte_view> try_bitset() const & noexcept { return bitset_of(*this); }
    template <class S = Storage, std::enable_if_t<!S::is_owning, int> = 0>
    result<byte_view> try_bitset() const && noexcept {
        return bitset_of(*this);
    }
    template <class S = Storage, std::enable_if_t<S::is_owning, int> = 0>
    result<byte_view> try_bitset() const && = delete;

    SKETCHES_DETAIL_ADD_BOOL_TOKEN_OPS(sketch_sbbf)
    SKETCHES_DETAIL_CONTAINS_TOKEN_OPS(sketch_sbbf)
    SKETCHES_DETAIL_BATCH_BOOL_OPS(sketch_sbbf, add, add, false)
    SKETCHES_DETAIL_CONCURRENT_FILTER_OPS(sketch_sbbf)
    SKETCHES_DETAIL_CAPACITY_OPS(sketch_sbbf)
    SKETCHES_DETAIL_MERGE_OP(merge, sketch_sbbf_union)
    SKETCHES_DETAIL_MERGE_OP(intersect, sketch_sbbf_intersect)

/* A single integer key narrower than 64 bits (f.add(42), an int32_t):
   its 64-bit value, as every family takes it, except on a Parquet-mode
   filter, which refuses it with status::invalid_argument and changes
   nothing (its 8 bytes are an INT64 value, never in an INT32 column's
   filter; batches of such keys are refused alike). */
#define SKETCHES_DETAIL_SBBF_NARROW_KEY(NAME, CONST)                                                           \
    template <class K, detail::if_narrow_integer_key<K> = 0>                                                   \
    result<bool> try_##NAME(K key) CONST noexcept {                                                            \
        if (parquet_mode()) return result<bool>{status::invalid_argument, false};                              \
        return try_##NAME(static_cast<std::uint64_t>(key));                                                    \
    }
    SKETCHES_DETAIL_SBBF_NARROW_KEY(add, )
    SKETCHES_DETAIL_SBBF_NARROW_KEY(contains, const)
    SKETCHES_DETAIL_SBBF_NARROW_KEY(add_concurrent, )
    SKETCHES_DETAIL_SBBF_NARROW_KEY(contains_concurrent, const)
#undef SKETCHES_DETAIL_SBBF_NARROW_KEY

#if SKETCHES_EXCEPTIONS
    [[nodiscard]] static sbbf_params plan(std::uint64_t items, double fpr) { return base::value(try_plan(items, fpr)); }
    [[nodiscard]] static sbbf_params plan_parquet(std::uint64_t ndv, double fpp) {
        return base::value(try_plan_parquet(ndv, fpp));
    }
    [[nodiscard]] static sbbf_params plan_blocks(std::uint64_t blocks, std::uint32_t mode) {
        return base::value(try_plan_blocks(blocks, mode));
    }
    [[nodiscard]] static sbbf_params plan_parquet(std::uint64_t ndv, double fpp, parquet_sizing sizing) {
        return base::value(try_plan_parquet(ndv, fpp, sizing));
    }
    [[nodiscard]] static sbbf_params plan_parquet_bitset(std::size_t bitset_len, double fpr) {
        return base::value(try_plan_parquet_bitset(bitset_len, fpr));
    }
    [[nodiscard]] static owned_type from_parquet_bitset(byte_source bitset, double fpr) {
        return base::value(try_from_parquet_bitset(bitset, fpr));
    }
    [[nodiscard]] static view_type load_parquet_bitset(void *buf, std::size_t len, byte_source bitset,
                                                       const sbbf_params &params) {
        return base::value(try_load_parquet_bitset(buf, len, bitset, params));
    }
    template <class S = Storage, std::enable_if_t<S::is_mutable, int> = 0>
    void fold(std::uint32_t folds) {
        base::check(try_fold(folds));
    }
    template <class S = Storage, std::enable_if_t<S::is_mutable, int> = 0>
    std::uint32_t fold_to_target_fpp(double fpp) {
        return base::value(try_fold_to_target_fpp(fpp));
    }
    [[nodiscard]] static std::uint64_t image_size(const sbbf_params &params) {
        return base::value(try_image_size(params));
    }
    [[nodiscard]] static owned_type create(const sbbf_params &params, std::uint64_t seed = 0) {
        return base::value(try_create(params, seed));
    }
    [[nodiscard]] static owned_type create(std::uint64_t items, double fpr, std::uint64_t seed = 0) {
        return base::value(try_create(items, fpr, seed));
    }
    [[nodiscard]] static view_type init(void *buf, std::size_t len, const sbbf_params &params, std::uint64_t seed = 0) {
        return base::value(try_init(buf, len, params, seed));
    }
    [[nodiscard]] byte_view bitset() const & { return base::value(try_bitset()); }
    template <class S = Storage, std::enable_if_t<!S::is_owning, int> = 0>
    [[nodiscard]] byte_view bitset() const && {
        return base::value(try_bitset());
    }
    template <class S = Storage, std::enable_if_t<S::is_owning, int> = 0>
    byte_view bitset() const && = delete;
    SKETCHES_DETAIL_ADD_BOOL_THROWING(add)
    SKETCHES_DETAIL_CONTAINS_THROWING(contains)
    SKETCHES_DETAIL_BATCH_BOOL_THROWING(add)
    SKETCHES_DETAIL_CONCURRENT_FILTER_THROWING
    SKETCHES_DETAIL_CAPACITY_THROWING
    SKETCHES_DETAIL_MERGE_THROWING(merge)
    SKETCHES_DETAIL_MERGE_THROWING(intersect)
    /* The narrower integer keys' throwing forms (see try_add(K)). */
    template <class K, detail::if_narrow_integer_key<K> = 0>
    bool add(K key) {
        return base::value(try_add(key));
    }
    template <class K, detail::if_narrow_integer_key<K> = 0>
    [[nodiscard]] bool contains(K key) const {
        return base::value(try_contains(key));
    }
    template <class K, detail::if_narrow_integer_key<K> = 0>
    bool add_concurrent(K key) {
        return base::value(try_add_concurrent(key));
    }
    template <class K, detail::if_narrow_integer_key<K> = 0>
    [[nodiscard]] bool contains_concurrent(K key) const {
        return base::value(try_contains_concurrent(key));
    }
#endif

  private:
    /// True when the image is a Parquet-mode split-block filter (XXH64):
    /// the hash read with the token (a field load, so an int key costs what
    /// a std::uint64_t one does), else, without a token, read from the image.
    bool parquet_mode() const noexcept {
        if (this->hash_kind() != 0) return this->hash_kind() == SKETCH_HASH_XXH64;
        sketch_image_info info{};
        return sketch_image_inspect(this->data(), this->size(), &info) == SKETCH_OK &&
               info.family == SKETCH_FAMILY_SPLIT_BLOCK_BLOOM && info.hash == SKETCH_HASH_XXH64;
    }
    static result<byte_view> bitset_of(const basic_sbbf &f) noexcept {
        const std::uint8_t *bits = nullptr;
        std::size_t len = 0;
        result<byte_view> r;
        r.status = detail::st(sketch_sbbf_bitset(f.data(), f.size(), &bits, &len));
        if (r.ok()) r.value = byte_view(bits, len);
        return r;
    }
    /// A batch of integers narrower than 64 bits (a std::vector<std::int32_t>,
    /// ...) on a Parquet-mode filter: status::invalid_argument, nothing
    /// added. Integer keys hash as their 8 bytes, which is Parquet's INT64;
    /// Parquet stores such a column as INT32 and hashes its 4 bytes, so every
    /// key of the column was silently absent. Hash them with parquet_hash_i32
    /// (or widen to std::int64_t for an INT64 column) and use the _hash forms.
    template <class Keys>
    sketches::status check_keys() const noexcept {
        using info = detail::key_range<Keys>;
        if constexpr (info::integers && sizeof(typename info::element) < sizeof(std::uint64_t)) {
            if (parquet_mode()) return sketches::status::invalid_argument;
        }
        return sketches::status::ok;
    }
};
using sbbf_filter = basic_sbbf<detail::owned_storage>;
using sbbf_view = basic_sbbf<detail::ref_storage<true>>;
using sbbf_const_view = basic_sbbf<detail::ref_storage<false>>;

/* ---------------- Counting Bloom filter ---------------- */

/// Counting Bloom filter (sketch_counting_*): 4-bit saturating counters.
/// Planned with bloom_params (bits = counters). As bloom_filter (without
/// intersect), plus remove(key) -> false when absent, remove_hash,
/// remove_batch(keys [, removed]), remove_hash_batch; merge adds counters. Shared by every family: stats, clear, to_bytes / export_to / write_to,
/// from_bytes / read_from / import_size / verify, clone, data / size / bytes, view /
/// const_view; every operation also has a try_ form.
template <class Storage>
class basic_counting : public detail::sketch_base<basic_counting, detail::counting_api, Storage> {
    using base = detail::sketch_base<basic_counting, detail::counting_api, Storage>;

  public:
    SKETCHES_DETAIL_FAMILY_TYPES
    using params_type = bloom_params;

    static result<bloom_params> try_plan(std::uint64_t items, double fpr) noexcept {
        return basic_bloom<Storage>::try_plan(items, fpr);
    }
    static result<bloom_params> try_plan_bits(std::uint64_t counters, std::uint32_t hashes) noexcept {
        return basic_bloom<Storage>::try_plan_bits(counters, hashes);
    }
    static result<std::uint64_t> try_image_size(const bloom_params &params) noexcept {
        result<std::uint64_t> r;
        r.status = detail::st(sketch_counting_size(&params, &r.value));
        return r;
    }
    static result<owned_type> try_create(const bloom_params &params, std::uint64_t seed = 0) noexcept {
        return detail::create_owned<owned_type>(try_image_size(params), [&](void *buf, std::size_t len) {
            return sketch_counting_init(buf, len, &params, seed);
        });
    }
    static result<owned_type> try_create(std::uint64_t items, double fpr, std::uint64_t seed = 0) noexcept {
        result<bloom_params> p = try_plan(items, fpr);
        if (!p.ok()) return result<owned_type>{p.status, {}};
        return try_create(p.value, seed);
    }
    static result<view_type> try_init(void *buf, std::size_t len, const bloom_params &params,
                                      std::uint64_t seed = 0) noexcept {
        return detail::init_view<view_type>(buf, len, [&] { return sketch_counting_init(buf, len, &params, seed); });
    }

    SKETCHES_DETAIL_ADD_BOOL_OPS(add, sketch_counting_add)
    SKETCHES_DETAIL_CONTAINS_OPS(contains, sketch_counting_contains)
    SKETCHES_DETAIL_BATCH_BOOL_OPS(sketch_counting, add, add, false)
    SKETCHES_DETAIL_BATCH_BOOL_OPS(sketch_counting, remove, remove, true)
    SKETCHES_DETAIL_CAPACITY_OPS(sketch_counting)
    /// Counter-wise saturating addition.
    SKETCHES_DETAIL_MERGE_OP(merge, sketch_counting_merge)
    /// Removes a key: status::not_present (nothing changed) when it is absent.
    status try_remove(byte_source key) noexcept {
        return detail::st(sketch_counting_remove(this->mdata(), this->size(), key.data(), key.size()));
    }
    status try_remove(std::uint64_t key) noexcept {
        return detail::st(sketch_counting_remove_u64(this->mdata(), this->size(), key));
    }
    SKETCHES_DETAIL_REFUSE_KEYS(try_remove, )
    status try_remove_hash(std::uint64_t hash) noexcept {
        return detail::st(sketch_counting_remove_hash(this->mdata(), this->size(), hash));
    }

#if SKETCHES_EXCEPTIONS
    [[nodiscard]] static bloom_params plan(std::uint64_t items, double fpr) { return base::value(try_plan(items, fpr)); }
    [[nodiscard]] static bloom_params plan_bits(std::uint64_t counters, std::uint32_t hashes) {
        return base::value(try_plan_bits(counters, hashes));
    }
    [[nodiscard]] static std::uint64_t image_size(const bloom_params &params) {
        return base::value(try_image_size(params));
    }
    [[nodiscard]] static owned_type create(const bloom_params &params, std::uint64_t seed = 0) {
        return base::value(try_create(params, seed));
    }
    [[nodiscard]] static owned_type create(std::uint64_t items, double fpr, std::uint64_t seed = 0) {
        return base::value(try_create(items, fpr, seed));
    }
    [[nodiscard]] static view_type init(void *buf, std::size_t len, const bloom_params &params, std::uint64_t seed = 0) {
        return base::value(try_init(buf, len, params, seed));
    }
    SKETCHES_DETAIL_ADD_BOOL_THROWING(add)
    SKETCHES_DETAIL_CONTAINS_THROWING(contains)
    SKETCHES_DETAIL_BATCH_BOOL_THROWING(add)
    /// Removes keys; out[i] (if given) is false for a key that was absent.
    SKETCHES_DETAIL_BATCH_BOOL_THROWING(remove)
    SKETCHES_DETAIL_CAPACITY_THROWING
    SKETCHES_DETAIL_MERGE_THROWING(merge)
    /// Removes a key; false (nothing changed) when it was absent.
    bool remove(byte_source key) { return removed(try_remove(key)); }
    bool remove(std::uint64_t key) { return removed(try_remove(key)); }
    bool remove_hash(std::uint64_t hash) { return removed(try_remove_hash(hash)); }
    SKETCHES_DETAIL_REFUSE_KEYS(remove, )

  private:
    static bool removed(status s) {
        if (s == status::not_present) return false;
        base::check(s);
        return true;
    }
#endif
};
using counting_filter = basic_counting<detail::owned_storage>;
using counting_view = basic_counting<detail::ref_storage<true>>;
using counting_const_view = basic_counting<detail::ref_storage<false>>;

/* ---------------- Cuckoo filter ---------------- */

/// Cuckoo filter (sketch_cuckoo_*). Factories: plan(items, fpr),
/// plan_buckets(buckets, fingerprint_bits), image_size, create, init.
/// add(key) -> false when full (nothing changed), add_hash,
/// add_batch(keys [, added]) -> keys placed, add_hash_batch, contains (and
/// batches), count(key), remove(key) -> false when absent, remove_hash,
/// remove_batch(keys [, removed]) -> keys removed, remove_hash_batch,
/// merge(other [, scratch]) all or nothing, capacity_flags, over_capacity. Shared by every family: stats, clear, to_bytes / export_to / write_to,
/// from_bytes / read_from / import_size / verify, clone, data / size / bytes, view /
/// const_view; every operation also has a try_ form.
template <class Storage>
class basic_cuckoo : public detail::sketch_base<basic_cuckoo, detail::cuckoo_api, Storage> {
    using base = detail::sketch_base<basic_cuckoo, detail::cuckoo_api, Storage>;

  public:
    SKETCHES_DETAIL_FAMILY_TYPES
    using params_type = cuckoo_params;

    static result<cuckoo_params> try_plan(std::uint64_t items, double fpr) noexcept {
        result<cuckoo_params> r;
        r.status = detail::st(sketch_cuckoo_plan(items, fpr, &r.value));
        return r;
    }
    static result<cuckoo_params> try_plan_buckets(std::uint64_t buckets, std::uint32_t fingerprint_bits) noexcept {
        result<cuckoo_params> r;
        r.status = detail::st(sketch_cuckoo_plan_buckets(buckets, fingerprint_bits, &r.value));
        return r;
    }
    static result<std::uint64_t> try_image_size(const cuckoo_params &params) noexcept {
        result<std::uint64_t> r;
        r.status = detail::st(sketch_cuckoo_size(&params, &r.value));
        return r;
    }
    static result<owned_type> try_create(const cuckoo_params &params, std::uint64_t seed = 0) noexcept {
        return detail::create_owned<owned_type>(try_image_size(params), [&](void *buf, std::size_t len) {
            return sketch_cuckoo_init(buf, len, &params, seed);
        });
    }
    static result<owned_type> try_create(std::uint64_t items, double fpr, std::uint64_t seed = 0) noexcept {
        result<cuckoo_params> p = try_plan(items, fpr);
        if (!p.ok()) return result<owned_type>{p.status, {}};
        return try_create(p.value, seed);
    }
    static result<view_type> try_init(void *buf, std::size_t len, const cuckoo_params &params,
                                      std::uint64_t seed = 0) noexcept {
        return detail::init_view<view_type>(buf, len, [&] { return sketch_cuckoo_init(buf, len, &params, seed); });
    }

    /// Adds a key: status::full (image unchanged) when it cannot be placed.
    status try_add(byte_source key) noexcept {
        return detail::st(sketch_cuckoo_add(this->mdata(), this->size(), key.data(), key.size()));
    }
    status try_add(std::uint64_t key) noexcept { return detail::st(sketch_cuckoo_add_u64(this->mdata(), this->size(), key)); }
    SKETCHES_DETAIL_REFUSE_KEYS(try_add, )
    status try_add_hash(std::uint64_t hash) noexcept {
        return detail::st(sketch_cuckoo_add_hash(this->mdata(), this->size(), hash));
    }
    /// Adds keys; added[i] (if given) is false for a key that did not fit.
    SKETCHES_DETAIL_BATCH_BOOL_OPS(sketch_cuckoo, add, add, false)
    SKETCHES_DETAIL_CONTAINS_OPS(contains, sketch_cuckoo_contains)
    /// Copies of the key's fingerprint stored (0..8).
    result<std::uint32_t> try_count(byte_source key) const noexcept {
        std::uint32_t n = 0;
        return this->make(sketch_cuckoo_count(this->data(), this->size(), key.data(), key.size(), &n), n);
    }
    result<std::uint32_t> try_count(std::uint64_t key) const noexcept {
        std::array<unsigned char, 8> b = detail::le_bytes(key);
        return try_count(byte_view(b));
    }
    SKETCHES_DETAIL_REFUSE_KEYS(try_count, const)
    /// Removes one copy: status::not_present (nothing changed) when absent.
    /// Only remove keys that were added.
    status try_remove(byte_source key) noexcept {
        return detail::st(sketch_cuckoo_remove(this->mdata(), this->size(), key.data(), key.size()));
    }
    status try_remove(std::uint64_t key) noexcept {
        return detail::st(sketch_cuckoo_remove_u64(this->mdata(), this->size(), key));
    }
    SKETCHES_DETAIL_REFUSE_KEYS(try_remove, )
    status try_remove_hash(std::uint64_t hash) noexcept {
        return detail::st(sketch_cuckoo_remove_hash(this->mdata(), this->size(), hash));
    }
    /// Removes one copy of each key; removed[i] (if given) is false for a
    /// key with no stored copy (nothing changed for it).
    SKETCHES_DETAIL_BATCH_BOOL_OPS(sketch_cuckoo, remove, remove, false)
    SKETCHES_DETAIL_CAPACITY_OPS(sketch_cuckoo)
    /// Inserts every fingerprint of `other`, all or nothing (status::full:
    /// unchanged), with caller scratch (8-byte aligned, at least size() bytes).
    status try_merge(const const_view_type &other, void *scratch, std::size_t scratch_len) noexcept {
        void *buf = this->mdata();
        return this->merge_source(other.data(), other.size(), [&](const void *src, std::size_t src_len) {
            return sketch_cuckoo_merge(buf, this->size(), src, src_len, scratch, scratch_len);
        });
    }
    /// The same with scratch allocated for the call.
    status try_merge(const const_view_type &other) noexcept {
        detail::owned_storage scratch;
        status s = detail::owned_storage::allocate(this->size(), scratch);
        if (s != status::ok) return s;
        return try_merge(other, scratch.data(), scratch.size());
    }
    /// The same for an owning sketch (also a temporary one).
    status try_merge(const owned_type &other, void *scratch, std::size_t scratch_len) noexcept {
        return try_merge(other.const_view(), scratch, scratch_len);
    }
    status try_merge(const owned_type &other) noexcept { return try_merge(other.const_view()); }

#if SKETCHES_EXCEPTIONS
    [[nodiscard]] static cuckoo_params plan(std::uint64_t items, double fpr) { return base::value(try_plan(items, fpr)); }
    [[nodiscard]] static cuckoo_params plan_buckets(std::uint64_t buckets, std::uint32_t fingerprint_bits) {
        return base::value(try_plan_buckets(buckets, fingerprint_bits));
    }
    [[nodiscard]] static std::uint64_t image_size(const cuckoo_params &params) {
        return base::value(try_image_size(params));
    }
    [[nodiscard]] static owned_type create(const cuckoo_params &params, std::uint64_t seed = 0) {
        return base::value(try_create(params, seed));
    }
    [[nodiscard]] static owned_type create(std::uint64_t items, double fpr, std::uint64_t seed = 0) {
        return base::value(try_create(items, fpr, seed));
    }
    [[nodiscard]] static view_type init(void *buf, std::size_t len, const cuckoo_params &params, std::uint64_t seed = 0) {
        return base::value(try_init(buf, len, params, seed));
    }
    /// Adds a key; false (nothing changed) when the filter has no room for it.
    [[nodiscard]] bool add(byte_source key) { return placed(try_add(key)); }
    [[nodiscard]] bool add(std::uint64_t key) { return placed(try_add(key)); }
    SKETCHES_DETAIL_REFUSE_KEYS(add, )
    [[nodiscard]] bool add_hash(std::uint64_t hash) { return placed(try_add_hash(hash)); }
    /// Adds keys; returns how many were placed (added[i], if given, says which).
    template <class Keys, detail::if_keys<Keys> = 0>
    std::size_t add_batch(const Keys &keys, array_source<bool> added = {}) {
        std::size_t n = detail::key_count(keys);
        return count_added(n, added, [&](array_source<bool> out) { return try_add_batch(keys, out); });
    }
    std::size_t add_batch(const packed_source &keys, array_source<bool> added = {}) {
        return count_added(keys.count, added, [&](array_source<bool> out) { return try_add_batch(keys, out); });
    }
    std::size_t add_hash_batch(array_source<const std::uint64_t> hashes, array_source<bool> added = {}) {
        return count_added(hashes.size(), added, [&](array_source<bool> out) { return try_add_hash_batch(hashes, out); });
    }
    SKETCHES_DETAIL_CONTAINS_THROWING(contains)
    [[nodiscard]] std::uint32_t count(byte_source key) const { return base::value(try_count(key)); }
    [[nodiscard]] std::uint32_t count(std::uint64_t key) const { return base::value(try_count(key)); }
    SKETCHES_DETAIL_REFUSE_KEYS(count, const)
    /// Removes one copy; false (nothing changed) when absent.
    bool remove(byte_source key) { return removed(try_remove(key)); }
    bool remove(std::uint64_t key) { return removed(try_remove(key)); }
    bool remove_hash(std::uint64_t hash) { return removed(try_remove_hash(hash)); }
    SKETCHES_DETAIL_REFUSE_KEYS(remove, )
    /// Removes one copy of each key; returns how many had one (removed[i],
    /// if given, says which).
    template <class Keys, detail::if_keys<Keys> = 0>
    std::size_t remove_batch(const Keys &keys, array_source<bool> removed = {}) {
        std::size_t n = detail::key_count(keys);
        return count_added(n, removed, [&](array_source<bool> out) { return try_remove_batch(keys, out); });
    }
    std::size_t remove_batch(const packed_source &keys, array_source<bool> removed = {}) {
        return count_added(keys.count, removed, [&](array_source<bool> out) { return try_remove_batch(keys, out); });
    }
    std::size_t remove_hash_batch(array_source<const std::uint64_t> hashes, array_source<bool> removed = {}) {
        return count_added(hashes.size(), removed,
                           [&](array_source<bool> out) { return try_remove_hash_batch(hashes, out); });
    }
    SKETCHES_DETAIL_CAPACITY_THROWING
    /// All-or-nothing merge; throws error(status::full) when it does not fit.
    void merge(const const_view_type &other) { base::check(try_merge(other)); }
    void merge(const const_view_type &other, void *scratch, std::size_t scratch_len) {
        base::check(try_merge(other, scratch, scratch_len));
    }
    void merge(const owned_type &other) { base::check(try_merge(other)); }
    void merge(const owned_type &other, void *scratch, std::size_t scratch_len) {
        base::check(try_merge(other, scratch, scratch_len));
    }

  private:
    static bool placed(status s) {
        if (s == status::full) return false;
        base::check(s);
        return true;
    }
    static bool removed(status s) {
        if (s == status::not_present) return false;
        base::check(s);
        return true;
    }
    template <class Call>
    static std::size_t count_added(std::size_t n, array_source<bool> added, Call &&call) {
        detail::scratch<bool> tmp;
        if (added.empty()) {
            base::check(tmp.reserve(n));
            added = array_view<bool>(tmp.data(), n);
        }
        base::check(call(added));
        std::size_t placed_keys = 0;
        for (std::size_t i = 0; i < n; i++) placed_keys += added[i] ? 1u : 0u;
        return placed_keys;
    }
#endif
};
using cuckoo_filter = basic_cuckoo<detail::owned_storage>;
using cuckoo_view = basic_cuckoo<detail::ref_storage<true>>;
using cuckoo_const_view = basic_cuckoo<detail::ref_storage<false>>;

/* ---------------- HyperLogLog ---------------- */

/// HyperLogLog (sketch_hll_*): exact small mode, martingale estimate,
/// merge across precisions, compact export of small sketches.
/// image_size(p), create(p [, seed]), init(buf, len, p [, seed]);
/// add(key) -> changed, add_hash, add_batch(keys | packed | integers),
/// add_hash_batch; estimate, register_estimate, exported_size, merge,
/// downsize(p), downsize_into(p, buf, len); densify() then add_concurrent,
/// add_concurrent_hash, add_concurrent_batch, estimate_concurrent from many
/// threads at once (see Threads at the top). Shared by every family: stats, clear, to_bytes / export_to / write_to,
/// from_bytes / read_from / import_size / verify, clone, data / size / bytes, view /
/// const_view; every operation also has a try_ form.
template <class Storage>
class basic_hll : public detail::sketch_base<basic_hll, detail::hll_api, Storage> {
    using base = detail::sketch_base<basic_hll, detail::hll_api, Storage>;

  public:
    SKETCHES_DETAIL_FAMILY_TYPES

    /// Live image size for precision `p` (4..18).
    static result<std::uint64_t> try_image_size(int p) noexcept {
        result<std::uint64_t> r;
        r.status = p < 0 || p > 255 ? status::invalid_parameter
                                    : detail::st(sketch_hll_size(static_cast<std::uint8_t>(p), &r.value));
        return r;
    }
    static result<owned_type> try_create(int p, std::uint64_t seed = 0) noexcept {
        return detail::create_owned<owned_type>(try_image_size(p), [&](void *buf, std::size_t len) {
            return sketch_hll_init(buf, len, static_cast<std::uint8_t>(p), seed);
        });
    }
    static result<view_type> try_init(void *buf, std::size_t len, int p, std::uint64_t seed = 0) noexcept {
        if (p < 0 || p > 255) return result<view_type>{status::invalid_parameter, {}};
        return detail::init_view<view_type>(
            buf, len, [&] { return sketch_hll_init(buf, len, static_cast<std::uint8_t>(p), seed); });
    }

    /// Adds a key; the value is true when the sketch changed.
    SKETCHES_DETAIL_ADD_BOOL_TOKEN_OPS(sketch_hll)
    SKETCHES_DETAIL_BATCH_PLAIN_OPS(sketch_hll)
    /// Concurrent adds (the value: the sketch changed) and
    /// try_estimate_concurrent; the sketch must be dense (try_densify
    /// first, else status::small_mode and nothing changes).
    SKETCHES_DETAIL_CONCURRENT_COUNTER_OPS(sketch_hll)
    /// Leaves the exact small mode now (registers from the kept hashes);
    /// a dense sketch is unchanged. Exclusive access.
    status try_densify() noexcept { return detail::st(sketch_hll_densify(this->mdata(), this->size())); }
    /// Distinct-count estimate (exact in small mode). O(1).
    result<double> try_estimate() const noexcept {
        double out = 0;
        return this->make(sketch_hll_estimate(this->data(), this->size(), &out), out);
    }
    /// Estimate from the registers alone (what a merged sketch reports).
    result<double> try_register_estimate() const noexcept {
        double out = 0;
        return this->make(sketch_hll_register_estimate(this->data(), this->size(), &out), out);
    }
    /// Bytes to_bytes / export_to write (compact in small mode).
    result<std::size_t> try_exported_size() const noexcept { return detail::hll_api::export_size(this->data(), this->size()); }
    /// Union; `other`'s precision must be at least this one's.
    SKETCHES_DETAIL_MERGE_OP(merge, sketch_hll_merge)
    /// A copy at precision `p` (lower, or any while in small mode).
    result<owned_type> try_downsize(int p) const noexcept {
        return detail::create_owned<owned_type>(try_image_size(p), [&](void *buf, std::size_t len) {
            return sketch_hll_downsize(this->data(), this->size(), buf, len, static_cast<std::uint8_t>(p));
        });
    }
    /// The same into caller memory (at least image_size(p) bytes).
    result<view_type> try_downsize_into(int p, void *buf, std::size_t len) const noexcept {
        if (p < 0 || p > 255) return result<view_type>{status::invalid_parameter, {}};
        return detail::init_view<view_type>(buf, len, [&] {
            return sketch_hll_downsize(this->data(), this->size(), buf, len, static_cast<std::uint8_t>(p));
        });
    }

#if SKETCHES_EXCEPTIONS
    [[nodiscard]] static std::uint64_t image_size(int p) { return base::value(try_image_size(p)); }
    [[nodiscard]] static owned_type create(int p, std::uint64_t seed = 0) { return base::value(try_create(p, seed)); }
    [[nodiscard]] static view_type init(void *buf, std::size_t len, int p, std::uint64_t seed = 0) {
        return base::value(try_init(buf, len, p, seed));
    }
    SKETCHES_DETAIL_ADD_BOOL_THROWING(add)
    SKETCHES_DETAIL_BATCH_PLAIN_THROWING
    SKETCHES_DETAIL_CONCURRENT_COUNTER_THROWING
    void densify() { base::check(try_densify()); }
    [[nodiscard]] double estimate() const { return base::value(try_estimate()); }
    [[nodiscard]] double register_estimate() const { return base::value(try_register_estimate()); }
    [[nodiscard]] std::size_t exported_size() const { return base::value(try_exported_size()); }
    SKETCHES_DETAIL_MERGE_THROWING(merge)
    [[nodiscard]] owned_type downsize(int p) const { return base::value(try_downsize(p)); }
    [[nodiscard]] view_type downsize_into(int p, void *buf, std::size_t len) const {
        return base::value(try_downsize_into(p, buf, len));
    }
#endif
};
using hll_sketch = basic_hll<detail::owned_storage>;
using hll_view = basic_hll<detail::ref_storage<true>>;
using hll_const_view = basic_hll<detail::ref_storage<false>>;

/* ---------------- UltraLogLog ---------------- */

/// UltraLogLog (sketch_ull_*): 8-bit registers, martingale, FGRA and
/// maximum-likelihood estimates, conversion to HyperLogLog.
/// image_size(p), create, init; add -> changed, add_hash, add_batch,
/// add_hash_batch; estimate, register_estimate, ml_estimate, merge,
/// to_hll(), to_hll_into(buf, len); add_concurrent, add_concurrent_hash,
/// add_concurrent_batch, estimate_concurrent from many threads at once (see
/// Threads at the top). Shared by every family: stats, clear, to_bytes / export_to / write_to,
/// from_bytes / read_from / import_size / verify, clone, data / size / bytes, view /
/// const_view; every operation also has a try_ form.
template <class Storage>
class basic_ull : public detail::sketch_base<basic_ull, detail::ull_api, Storage> {
    using base = detail::sketch_base<basic_ull, detail::ull_api, Storage>;

  public:
    SKETCHES_DETAIL_FAMILY_TYPES

    static result<std::uint64_t> try_image_size(int p) noexcept {
        result<std::uint64_t> r;
        r.status = p < 0 || p > 255 ? status::invalid_parameter
                                    : detail::st(sketch_ull_size(static_cast<std::uint8_t>(p), &r.value));
        return r;
    }
    static result<owned_type> try_create(int p, std::uint64_t seed = 0) noexcept {
        return detail::create_owned<owned_type>(try_image_size(p), [&](void *buf, std::size_t len) {
            return sketch_ull_init(buf, len, static_cast<std::uint8_t>(p), seed);
        });
    }
    static result<view_type> try_init(void *buf, std::size_t len, int p, std::uint64_t seed = 0) noexcept {
        if (p < 0 || p > 255) return result<view_type>{status::invalid_parameter, {}};
        return detail::init_view<view_type>(
            buf, len, [&] { return sketch_ull_init(buf, len, static_cast<std::uint8_t>(p), seed); });
    }

    SKETCHES_DETAIL_ADD_BOOL_OPS(add, sketch_ull_add)
    SKETCHES_DETAIL_BATCH_PLAIN_OPS(sketch_ull)
    /// Concurrent adds (the value: the sketch changed) and try_estimate_concurrent.
    SKETCHES_DETAIL_CONCURRENT_COUNTER_OPS(sketch_ull)
    /// Martingale estimate while unmerged, FGRA after a merge.
    result<double> try_estimate() const noexcept {
        double out = 0;
        return this->make(sketch_ull_estimate(this->data(), this->size(), &out), out);
    }
    /// FGRA from the registers alone. O(m).
    result<double> try_register_estimate() const noexcept {
        double out = 0;
        return this->make(sketch_ull_register_estimate(this->data(), this->size(), &out), out);
    }
    /// Maximum likelihood from the registers. O(m).
    result<double> try_ml_estimate() const noexcept {
        double out = 0;
        return this->make(sketch_ull_ml_estimate(this->data(), this->size(), &out), out);
    }
    SKETCHES_DETAIL_MERGE_OP(merge, sketch_ull_merge)
    /// The HyperLogLog the same hashes give (same precision and seed).
    result<hll_sketch> try_to_hll() const noexcept {
        result<ull_stats> s = this->try_stats();
        if (!s.ok()) return result<hll_sketch>{s.status, {}};
        return detail::create_owned<hll_sketch>(hll_sketch::try_image_size(s.value.precision),
                                                [&](void *buf, std::size_t len) {
                                                    return sketch_ull_to_hll(this->data(), this->size(), buf, len);
                                                });
    }
    /// The same into caller memory (at least hll image_size(p) bytes).
    result<hll_view> try_to_hll_into(void *buf, std::size_t len) const noexcept {
        return detail::init_view<hll_view>(buf, len,
                                           [&] { return sketch_ull_to_hll(this->data(), this->size(), buf, len); });
    }

#if SKETCHES_EXCEPTIONS
    [[nodiscard]] static std::uint64_t image_size(int p) { return base::value(try_image_size(p)); }
    [[nodiscard]] static owned_type create(int p, std::uint64_t seed = 0) { return base::value(try_create(p, seed)); }
    [[nodiscard]] static view_type init(void *buf, std::size_t len, int p, std::uint64_t seed = 0) {
        return base::value(try_init(buf, len, p, seed));
    }
    SKETCHES_DETAIL_ADD_BOOL_THROWING(add)
    SKETCHES_DETAIL_BATCH_PLAIN_THROWING
    SKETCHES_DETAIL_CONCURRENT_COUNTER_THROWING
    [[nodiscard]] double estimate() const { return base::value(try_estimate()); }
    [[nodiscard]] double register_estimate() const { return base::value(try_register_estimate()); }
    [[nodiscard]] double ml_estimate() const { return base::value(try_ml_estimate()); }
    SKETCHES_DETAIL_MERGE_THROWING(merge)
    [[nodiscard]] hll_sketch to_hll() const { return base::value(try_to_hll()); }
    [[nodiscard]] hll_view to_hll_into(void *buf, std::size_t len) const { return base::value(try_to_hll_into(buf, len)); }
#endif
};
using ull_sketch = basic_ull<detail::owned_storage>;
using ull_view = basic_ull<detail::ref_storage<true>>;
using ull_const_view = basic_ull<detail::ref_storage<false>>;

/* ---------------- Count-Min ---------------- */

/// Count-Min (sketch_countmin_*): saturating counters, weights,
/// conservative update (set params.conservative), merge.
/// plan(epsilon, delta), plan_size(width, depth), image_size, create, init;
/// add(key [, weight]), add_hash, add_batch(keys [, weights]),
/// add_hash_batch; estimate(key), estimate_hash, estimate_batch(keys [, out]),
/// estimate_hash_batch; merge. Shared by every family: stats, clear, to_bytes / export_to / write_to,
/// from_bytes / read_from / import_size / verify, clone, data / size / bytes, view /
/// const_view; every operation also has a try_ form.
template <class Storage>
class basic_countmin : public detail::sketch_base<basic_countmin, detail::countmin_api, Storage> {
    using base = detail::sketch_base<basic_countmin, detail::countmin_api, Storage>;

  public:
    SKETCHES_DETAIL_FAMILY_TYPES
    using params_type = countmin_params;

    /// width = ceil(e / epsilon), depth = ceil(ln(1 / delta)); 32-bit
    /// counters, plain update (edit the struct to change them).
    static result<countmin_params> try_plan(double epsilon, double delta) noexcept {
        result<countmin_params> r;
        r.status = detail::st(sketch_countmin_plan(epsilon, delta, &r.value));
        return r;
    }
    static result<countmin_params> try_plan_size(std::uint64_t width, std::uint32_t depth) noexcept {
        result<countmin_params> r;
        r.status = detail::st(sketch_countmin_plan_size(width, depth, &r.value));
        return r;
    }
    static result<std::uint64_t> try_image_size(const countmin_params &params) noexcept {
        result<std::uint64_t> r;
        r.status = detail::st(sketch_countmin_size(&params, &r.value));
        return r;
    }
    static result<owned_type> try_create(const countmin_params &params, std::uint64_t seed = 0) noexcept {
        return detail::create_owned<owned_type>(try_image_size(params), [&](void *buf, std::size_t len) {
            return sketch_countmin_init(buf, len, &params, seed);
        });
    }
    static result<owned_type> try_create(double epsilon, double delta, std::uint64_t seed = 0) noexcept {
        result<countmin_params> p = try_plan(epsilon, delta);
        if (!p.ok()) return result<owned_type>{p.status, {}};
        return try_create(p.value, seed);
    }
    static result<view_type> try_init(void *buf, std::size_t len, const countmin_params &params,
                                      std::uint64_t seed = 0) noexcept {
        return detail::init_view<view_type>(buf, len, [&] { return sketch_countmin_init(buf, len, &params, seed); });
    }

    /// Adds `weight` occurrences of a key.
    status try_add(byte_source key, weight_value weight = 1) noexcept {
        if (weight.negative()) return status::invalid_argument;
        return detail::st(sketch_countmin_add(this->mdata(), this->size(), key.data(), key.size(), weight.value()));
    }
    status try_add(std::uint64_t key, weight_value weight = 1) noexcept {
        if (weight.negative()) return status::invalid_argument;
        return detail::st(sketch_countmin_add_u64(this->mdata(), this->size(), key, weight.value()));
    }
    SKETCHES_DETAIL_REFUSE_WEIGHTED_KEYS(try_add)
    SKETCHES_DETAIL_REFUSE_POINTER_AND_LENGTH(try_add)
    status try_add_hash(std::uint64_t hash, weight_value weight = 1) noexcept {
        if (weight.negative()) return status::invalid_argument;
        return detail::st(sketch_countmin_add_hash(this->mdata(), this->size(), hash, weight.value()));
    }
    /// Adds keys; `weights` empty (1 each) or one per key.
    template <class Keys, detail::if_keys<Keys> = 0>
    status try_add_batch(const Keys &keys, array_source<const std::uint64_t> weights = {}) noexcept {
        std::size_t n = detail::key_count(keys);
        const std::uint64_t *w = nullptr;
        status s = detail::weights_ptr(weights, n, w);
        if (s != status::ok) return s;
        void *buf = this->mdata();
        return detail::with_keys(
            keys, n,
            [&](const sketch_slice *k, std::size_t c) { return sketch_countmin_add_batch(buf, this->size(), k, c, w); },
            [&](const std::uint64_t *k, std::size_t c) {
                return sketch_countmin_add_u64_batch(buf, this->size(), k, c, w);
            });
    }
    status try_add_batch(const packed_source &keys, array_source<const std::uint64_t> weights = {}) noexcept {
        const std::uint64_t *w = nullptr;
        status s = detail::weights_ptr(weights, keys.count, w);
        if (s != status::ok) return s;
        return detail::st(sketch_countmin_add_packed(this->mdata(), this->size(), keys.data, keys.data_len,
                                                     keys.offsets, keys.count, w));
    }
    status try_add_hash_batch(array_source<const std::uint64_t> hashes,
                              array_source<const std::uint64_t> weights = {}) noexcept {
        const std::uint64_t *w = nullptr;
        status s = detail::weights_ptr(weights, hashes.size(), w);
        if (s != status::ok) return s;
        return detail::st(
            sketch_countmin_add_hash_batch(this->mdata(), this->size(), hashes.data(), hashes.size(), w));
    }
    /// Estimated count: never below the truth while no counter saturated
    /// (32-bit counters stop at 2^32 - 1; plan 64-bit ones for larger sums).
    result<std::uint64_t> try_estimate(byte_source key) const noexcept {
        std::uint64_t out = 0;
        return this->make(sketch_countmin_estimate(this->data(), this->size(), key.data(), key.size(), &out), out);
    }
    result<std::uint64_t> try_estimate(std::uint64_t key) const noexcept {
        std::uint64_t out = 0;
        return this->make(sketch_countmin_estimate_u64(this->data(), this->size(), key, &out), out);
    }
    SKETCHES_DETAIL_REFUSE_KEYS(try_estimate, const)
    result<std::uint64_t> try_estimate_hash(std::uint64_t hash) const noexcept {
        std::uint64_t out = 0;
        return this->make(sketch_countmin_estimate_hash(this->data(), this->size(), hash, &out), out);
    }
    template <class Keys, detail::if_keys<Keys> = 0>
    status try_estimate_batch(const Keys &keys, array_source<std::uint64_t> out) const noexcept {
        std::size_t n = detail::key_count(keys);
        status s = detail::out_required(out, n);
        if (s != status::ok) return s;
        return detail::with_keys(
            keys, n,
            [&](const sketch_slice *k, std::size_t c) {
                return sketch_countmin_estimate_batch(this->data(), this->size(), k, c, out.data());
            },
            [&](const std::uint64_t *k, std::size_t c) {
                return sketch_countmin_estimate_u64_batch(this->data(), this->size(), k, c, out.data());
            });
    }
    status try_estimate_batch(const packed_source &keys, array_source<std::uint64_t> out) const noexcept {
        status s = detail::out_required(out, keys.count);
        if (s != status::ok) return s;
        return detail::st(sketch_countmin_estimate_packed(this->data(), this->size(), keys.data, keys.data_len,
                                                          keys.offsets, keys.count, out.data()));
    }
    status try_estimate_hash_batch(array_source<const std::uint64_t> hashes, array_source<std::uint64_t> out) const noexcept {
        status s = detail::out_required(out, hashes.size());
        if (s != status::ok) return s;
        return detail::st(
            sketch_countmin_estimate_hash_batch(this->data(), this->size(), hashes.data(), hashes.size(), out.data()));
    }
    /// Counter-wise saturating addition.
    SKETCHES_DETAIL_MERGE_OP(merge, sketch_countmin_merge)

#if SKETCHES_EXCEPTIONS
    [[nodiscard]] static countmin_params plan(double epsilon, double delta) {
        return base::value(try_plan(epsilon, delta));
    }
    [[nodiscard]] static countmin_params plan_size(std::uint64_t width, std::uint32_t depth) {
        return base::value(try_plan_size(width, depth));
    }
    [[nodiscard]] static std::uint64_t image_size(const countmin_params &params) {
        return base::value(try_image_size(params));
    }
    [[nodiscard]] static owned_type create(const countmin_params &params, std::uint64_t seed = 0) {
        return base::value(try_create(params, seed));
    }
    [[nodiscard]] static owned_type create(double epsilon, double delta, std::uint64_t seed = 0) {
        return base::value(try_create(epsilon, delta, seed));
    }
    [[nodiscard]] static view_type init(void *buf, std::size_t len, const countmin_params &params,
                                        std::uint64_t seed = 0) {
        return base::value(try_init(buf, len, params, seed));
    }
    void add(byte_source key, weight_value weight = 1) { base::check(try_add(key, weight)); }
    void add(std::uint64_t key, weight_value weight = 1) { base::check(try_add(key, weight)); }
    SKETCHES_DETAIL_REFUSE_WEIGHTED_KEYS(add)
    SKETCHES_DETAIL_REFUSE_POINTER_AND_LENGTH(add)
    void add_hash(std::uint64_t hash, weight_value weight = 1) { base::check(try_add_hash(hash, weight)); }
    template <class Keys, detail::if_keys<Keys> = 0>
    void add_batch(const Keys &keys, array_source<const std::uint64_t> weights = {}) {
        base::check(try_add_batch(keys, weights));
    }
    void add_batch(const packed_source &keys, array_source<const std::uint64_t> weights = {}) {
        base::check(try_add_batch(keys, weights));
    }
    void add_hash_batch(array_source<const std::uint64_t> hashes, array_source<const std::uint64_t> weights = {}) {
        base::check(try_add_hash_batch(hashes, weights));
    }
    [[nodiscard]] std::uint64_t estimate(byte_source key) const { return base::value(try_estimate(key)); }
    [[nodiscard]] std::uint64_t estimate(std::uint64_t key) const { return base::value(try_estimate(key)); }
    SKETCHES_DETAIL_REFUSE_KEYS(estimate, const)
    [[nodiscard]] std::uint64_t estimate_hash(std::uint64_t hash) const { return base::value(try_estimate_hash(hash)); }
    template <class Keys, detail::if_keys<Keys> = 0>
    void estimate_batch(const Keys &keys, array_source<std::uint64_t> out) const {
        base::check(try_estimate_batch(keys, out));
    }
    void estimate_batch(const packed_source &keys, array_source<std::uint64_t> out) const {
        base::check(try_estimate_batch(keys, out));
    }
    void estimate_hash_batch(array_source<const std::uint64_t> hashes, array_source<std::uint64_t> out) const {
        base::check(try_estimate_hash_batch(hashes, out));
    }
    template <class Keys, detail::if_keys<Keys> = 0>
    [[nodiscard]] std::vector<std::uint64_t> estimate_batch(const Keys &keys) const {
        std::vector<std::uint64_t> out(detail::key_count(keys));
        base::check(try_estimate_batch(keys, out));
        return out;
    }
    [[nodiscard]] std::vector<std::uint64_t> estimate_batch(const packed_source &keys) const {
        std::vector<std::uint64_t> out(keys.count);
        base::check(try_estimate_batch(keys, out));
        return out;
    }
    [[nodiscard]] std::vector<std::uint64_t> estimate_hash_batch(array_source<const std::uint64_t> hashes) const {
        std::vector<std::uint64_t> out(hashes.size());
        base::check(try_estimate_hash_batch(hashes, out));
        return out;
    }
    SKETCHES_DETAIL_MERGE_THROWING(merge)
#endif
};
using countmin_sketch = basic_countmin<detail::owned_storage>;
using countmin_view = basic_countmin<detail::ref_storage<true>>;
using countmin_const_view = basic_countmin<detail::ref_storage<false>>;

/* ---------------- Top-k ---------------- */

/// Top-k heavy hitters (sketch_topk_*, Space-Saving): keys stored inline up
/// to a maximum length fixed at creation (a longer key is refused with
/// status::key_too_long, never truncated). Integer keys are stored as their
/// 8 little-endian bytes. image_size(capacity, max_key_len), create, init;
/// add(key [, weight]), add_batch(keys [, weights]) all or nothing;
/// estimate(key) -> {count, error, listed}; list() -> topk_entry (keys
/// copied), list_into(items) (keys pointing into the buffer); merge. Shared by every family: stats, clear, to_bytes / export_to / write_to,
/// from_bytes / read_from / import_size / verify, clone, data / size / bytes, view /
/// const_view; every operation also has a try_ form.
template <class Storage>
class basic_topk : public detail::sketch_base<basic_topk, detail::topk_api, Storage> {
    using base = detail::sketch_base<basic_topk, detail::topk_api, Storage>;

  public:
    SKETCHES_DETAIL_FAMILY_TYPES

    static result<std::uint64_t> try_image_size(std::uint32_t capacity, std::uint32_t max_key_len) noexcept {
        result<std::uint64_t> r;
        r.status = detail::st(sketch_topk_size(capacity, max_key_len, &r.value));
        return r;
    }
    static result<owned_type> try_create(std::uint32_t capacity, std::uint32_t max_key_len,
                                         std::uint64_t seed = 0) noexcept {
        return detail::create_owned<owned_type>(try_image_size(capacity, max_key_len), [&](void *buf, std::size_t len) {
            return sketch_topk_init(buf, len, capacity, max_key_len, seed);
        });
    }
    static result<view_type> try_init(void *buf, std::size_t len, std::uint32_t capacity, std::uint32_t max_key_len,
                                      std::uint64_t seed = 0) noexcept {
        return detail::init_view<view_type>(
            buf, len, [&] { return sketch_topk_init(buf, len, capacity, max_key_len, seed); });
    }

    status try_add(byte_source key, weight_value weight = 1) noexcept {
        if (weight.negative()) return status::invalid_argument;
        return detail::st(sketch_topk_add(this->mdata(), this->size(), key.data(), key.size(), weight.value()));
    }
    status try_add(std::uint64_t key, weight_value weight = 1) noexcept {
        if (weight.negative()) return status::invalid_argument;
        return detail::st(sketch_topk_add_u64(this->mdata(), this->size(), key, weight.value()));
    }
    SKETCHES_DETAIL_REFUSE_WEIGHTED_KEYS(try_add)
    SKETCHES_DETAIL_REFUSE_POINTER_AND_LENGTH(try_add)
    /// Adds keys (all or nothing: a key too long changes nothing); `weights`
    /// empty (1 each) or one per key.
    template <class Keys, detail::if_keys<Keys> = 0>
    status try_add_batch(const Keys &keys, array_source<const std::uint64_t> weights = {}) noexcept {
        std::size_t n = detail::key_count(keys);
        const std::uint64_t *w = nullptr;
        status s = detail::weights_ptr(weights, n, w);
        if (s != status::ok) return s;
        void *buf = this->mdata();
        return detail::with_keys(
            keys, n, [&](const sketch_slice *k, std::size_t c) { return sketch_topk_add_batch(buf, this->size(), k, c, w); },
            [&](const std::uint64_t *k, std::size_t c) { return sketch_topk_add_u64_batch(buf, this->size(), k, c, w); });
    }
    status try_add_batch(const packed_source &keys, array_source<const std::uint64_t> weights = {}) noexcept {
        const std::uint64_t *w = nullptr;
        status s = detail::weights_ptr(weights, keys.count, w);
        if (s != status::ok) return s;
        return detail::st(sketch_topk_add_packed(this->mdata(), this->size(), keys.data, keys.data_len, keys.offsets,
                                                 keys.count, w));
    }
    /// The count bounds of one key (listed = it has a counter).
    result<topk_estimate> try_estimate(byte_source key) const noexcept {
        result<topk_estimate> r;
        r.status = detail::st(sketch_topk_estimate(this->data(), this->size(), key.data(), key.size(), &r.value));
        return r;
    }
    result<topk_estimate> try_estimate(std::uint64_t key) const noexcept {
        std::array<unsigned char, 8> b = detail::le_bytes(key);
        return try_estimate(byte_view(b));
    }
    SKETCHES_DETAIL_REFUSE_KEYS(try_estimate, const)
    /// Writes up to items.size() listed keys, largest count first; the value
    /// is how many. Key pointers point into this buffer: valid until the
    /// sketch changes or is freed. Deleted on a temporary owning sketch
    /// (`topk_sketch::from_bytes(b).list_into(items)`): its buffer dies with
    /// the statement and every key pointer would dangle (use list()).
    result<std::size_t> try_list_into(array_source<topk_item> items) const & noexcept {
        result<std::size_t> r;
        r.status = detail::st(sketch_topk_list(this->data(), this->size(), items.data(), items.size(), &r.value));
        return r;
    }
    template <class S = Storage, std::enable_if_t<!S::is_owning, int> = 0>
    result<std::size_t> try_list_into(array_source<topk_item> items) const && noexcept {
        return try_list_into(items);
    }
    template <class S = Storage, std::enable_if_t<S::is_owning, int> = 0>
    result<std::size_t> try_list_into(array_source<topk_item> items) const && = delete;
    /// Every listed key, largest count first, keys copied;
    /// status::out_of_memory when the copies cannot be allocated (see
    /// detail::filled; try_list_into allocates nothing).
    result<std::vector<topk_entry>> try_list() const noexcept {
        return detail::filled<std::vector<topk_entry>>([&](result<std::vector<topk_entry>> &r) {
            result<topk_stats> s = this->try_stats();
            if (!s.ok()) {
                r.status = s.status;
                return;
            }
            std::vector<topk_item> items(s.value.used);
            result<std::size_t> n = try_list_into(items);
            r.status = n.status;
            if (!n.ok()) return;
            r.value.reserve(n.value);
            for (std::size_t i = 0; i < n.value; i++) {
                const topk_item &it = items[i];
                r.value.push_back(
                    topk_entry{std::string(reinterpret_cast<const char *>(it.key), it.key_len), it.count, it.error});
            }
        });
    }
    /// Keeps the keys with the largest combined estimates.
    SKETCHES_DETAIL_MERGE_OP(merge, sketch_topk_merge)

#if SKETCHES_EXCEPTIONS
    [[nodiscard]] static std::uint64_t image_size(std::uint32_t capacity, std::uint32_t max_key_len) {
        return base::value(try_image_size(capacity, max_key_len));
    }
    [[nodiscard]] static owned_type create(std::uint32_t capacity, std::uint32_t max_key_len, std::uint64_t seed = 0) {
        return base::value(try_create(capacity, max_key_len, seed));
    }
    [[nodiscard]] static view_type init(void *buf, std::size_t len, std::uint32_t capacity, std::uint32_t max_key_len,
                                        std::uint64_t seed = 0) {
        return base::value(try_init(buf, len, capacity, max_key_len, seed));
    }
    void add(byte_source key, weight_value weight = 1) { base::check(try_add(key, weight)); }
    void add(std::uint64_t key, weight_value weight = 1) { base::check(try_add(key, weight)); }
    SKETCHES_DETAIL_REFUSE_WEIGHTED_KEYS(add)
    SKETCHES_DETAIL_REFUSE_POINTER_AND_LENGTH(add)
    template <class Keys, detail::if_keys<Keys> = 0>
    void add_batch(const Keys &keys, array_source<const std::uint64_t> weights = {}) {
        base::check(try_add_batch(keys, weights));
    }
    void add_batch(const packed_source &keys, array_source<const std::uint64_t> weights = {}) {
        base::check(try_add_batch(keys, weights));
    }
    [[nodiscard]] topk_estimate estimate(byte_source key) const { return base::value(try_estimate(key)); }
    [[nodiscard]] topk_estimate estimate(std::uint64_t key) const { return base::value(try_estimate(key)); }
    SKETCHES_DETAIL_REFUSE_KEYS(estimate, const)
    std::size_t list_into(array_source<topk_item> items) const & { return base::value(try_list_into(items)); }
    template <class S = Storage, std::enable_if_t<!S::is_owning, int> = 0>
    std::size_t list_into(array_source<topk_item> items) const && {
        return base::value(try_list_into(items));
    }
    template <class S = Storage, std::enable_if_t<S::is_owning, int> = 0>
    std::size_t list_into(array_source<topk_item> items) const && = delete;
    [[nodiscard]] std::vector<topk_entry> list() const { return base::value(try_list()); }
    SKETCHES_DETAIL_MERGE_THROWING(merge)
#endif
};
using topk_sketch = basic_topk<detail::owned_storage>;
using topk_view = basic_topk<detail::ref_storage<true>>;
using topk_const_view = basic_topk<detail::ref_storage<false>>;

/* ---------------- MinHash ---------------- */

/// MinHash (sketch_minhash_*): k registers, one-permutation hashing with
/// densification. image_size(k), create(k [, seed]), init; add -> changed,
/// add_hash, add_batch, add_hash_batch; jaccard(other), signature(),
/// signature_into(out), merge (union). Shared by every family: stats, clear, to_bytes / export_to / write_to,
/// from_bytes / read_from / import_size / verify, clone, data / size / bytes, view /
/// const_view; every operation also has a try_ form.
template <class Storage>
class basic_minhash : public detail::sketch_base<basic_minhash, detail::minhash_api, Storage> {
    using base = detail::sketch_base<basic_minhash, detail::minhash_api, Storage>;

  public:
    SKETCHES_DETAIL_FAMILY_TYPES

    static result<std::uint64_t> try_image_size(std::uint32_t k) noexcept {
        result<std::uint64_t> r;
        r.status = detail::st(sketch_minhash_size(k, &r.value));
        return r;
    }
    static result<owned_type> try_create(std::uint32_t k, std::uint64_t seed = 0) noexcept {
        return detail::create_owned<owned_type>(try_image_size(k), [&](void *buf, std::size_t len) {
            return sketch_minhash_init(buf, len, k, seed);
        });
    }
    static result<view_type> try_init(void *buf, std::size_t len, std::uint32_t k, std::uint64_t seed = 0) noexcept {
        return detail::init_view<view_type>(buf, len, [&] { return sketch_minhash_init(buf, len, k, seed); });
    }

    /// Adds a key; the value is true when its bin's minimum dropped.
    SKETCHES_DETAIL_ADD_BOOL_OPS(add, sketch_minhash_add)
    SKETCHES_DETAIL_BATCH_PLAIN_OPS(sketch_minhash)
    /// Estimated Jaccard similarity with `other` (same k and seed).
    result<double> try_jaccard(const const_view_type &other) const noexcept {
        double out = 0;
        return this->make(sketch_minhash_jaccard(this->data(), this->size(), other.data(), other.size(), &out), out);
    }
    result<double> try_jaccard(const owned_type &other) const noexcept { return try_jaccard(other.const_view()); }
    /// The k densified signature values into `out` (exactly k).
    status try_signature_into(array_source<std::uint64_t> out) const noexcept {
        return detail::st(sketch_minhash_signature(this->data(), this->size(), out.data(), out.size()));
    }
    /// The signature as a vector; status::out_of_memory when it cannot be
    /// allocated (see detail::filled; try_signature_into allocates nothing).
    result<std::vector<std::uint64_t>> try_signature() const noexcept {
        return detail::filled<std::vector<std::uint64_t>>([&](result<std::vector<std::uint64_t>> &r) {
            result<minhash_stats> s = this->try_stats();
            if (!s.ok()) {
                r.status = s.status;
                return;
            }
            r.value.resize(s.value.registers);
            r.status = try_signature_into(r.value);
            if (!r.ok()) r.value.clear();
        });
    }
    /// Register-wise minimum (the sketch of the union).
    SKETCHES_DETAIL_MERGE_OP(merge, sketch_minhash_merge)

#if SKETCHES_EXCEPTIONS
    [[nodiscard]] static std::uint64_t image_size(std::uint32_t k) { return base::value(try_image_size(k)); }
    [[nodiscard]] static owned_type create(std::uint32_t k, std::uint64_t seed = 0) {
        return base::value(try_create(k, seed));
    }
    [[nodiscard]] static view_type init(void *buf, std::size_t len, std::uint32_t k, std::uint64_t seed = 0) {
        return base::value(try_init(buf, len, k, seed));
    }
    SKETCHES_DETAIL_ADD_BOOL_THROWING(add)
    SKETCHES_DETAIL_BATCH_PLAIN_THROWING
    [[nodiscard]] double jaccard(const const_view_type &other) const { return base::value(try_jaccard(other)); }
    [[nodiscard]] double jaccard(const owned_type &other) const { return base::value(try_jaccard(other)); }
    void signature_into(array_source<std::uint64_t> out) const { base::check(try_signature_into(out)); }
    [[nodiscard]] std::vector<std::uint64_t> signature() const { return base::value(try_signature()); }
    SKETCHES_DETAIL_MERGE_THROWING(merge)
#endif
};
using minhash_sketch = basic_minhash<detail::owned_storage>;
using minhash_view = basic_minhash<detail::ref_storage<true>>;
using minhash_const_view = basic_minhash<detail::ref_storage<false>>;

/* ---------------- Binary fuse filter ---------------- */

/// Static binary fuse filter (sketch_fuse_*): built once from a set of keys,
/// then only queried; about 9 bits per key at a false-positive rate of 2^-8
/// (8-bit fingerprints) or 18 at 2^-16 (16-bit), never a false negative.
/// There is no add and no clear: a different set needs a new build. Factories:
/// plan(keys, fpr), plan_bits(keys, 8 | 16), image_size, scratch_size;
/// build(keys, fpr | params [, seed]) from any key container (strings,
/// integers, packed_view), build_hashes(hashes, fpr | params [, seed]) from
/// sketches::hash values with the same seed, build_into(buf, len, scratch,
/// scratch_len, keys, params [, seed]) into caller memory (no allocation).
/// contains (and batches). Shared by every family: stats, to_bytes /
/// export_to / write_to, from_bytes / read_from / import_size / verify, clone, data / size / bytes,
/// view / const_view; every operation also has a try_ form.
template <class Storage>
class basic_fuse : public detail::sketch_base<basic_fuse, detail::fuse_api, Storage> {
    using base = detail::sketch_base<basic_fuse, detail::fuse_api, Storage>;

  public:
    SKETCHES_DETAIL_FAMILY_TYPES
    using params_type = fuse_params;

    /// 8-bit fingerprints when fpr >= 2^-8, else 16-bit.
    static result<fuse_params> try_plan(std::uint64_t keys, double fpr) noexcept {
        result<fuse_params> r;
        r.status = detail::st(sketch_fuse_plan(keys, fpr, &r.value));
        return r;
    }
    static result<fuse_params> try_plan_bits(std::uint64_t keys, std::uint32_t fingerprint_bits) noexcept {
        result<fuse_params> r;
        r.status = detail::st(sketch_fuse_plan_bits(keys, fingerprint_bits, &r.value));
        return r;
    }
    static result<std::uint64_t> try_image_size(const fuse_params &params) noexcept {
        result<std::uint64_t> r;
        r.status = detail::st(sketch_fuse_size(&params, &r.value));
        return r;
    }
    /// Bytes of scratch a build needs (about 32 per planned key; any alignment).
    static result<std::uint64_t> try_scratch_size(const fuse_params &params) noexcept {
        result<std::uint64_t> r;
        r.status = detail::st(sketch_fuse_scratch_size(&params, &r.value));
        return r;
    }

    /// Builds a filter of `keys` into caller memory (`buf`: 8-byte aligned,
    /// image_size bytes; `scratch`: scratch_size bytes, free after the call).
    /// `buf` is written only on success.
    template <class Keys, detail::if_keys<Keys> = 0>
    static result<view_type> try_build_into(void *buf, std::size_t len, void *scratch, std::size_t scratch_len,
                                            const Keys &keys, const fuse_params &params,
                                            std::uint64_t seed = 0) noexcept {
        std::size_t n = detail::key_count(keys);
        return built(buf, len, detail::with_keys(
                                   keys, n,
                                   [&](const sketch_slice *k, std::size_t c) {
                                       return sketch_fuse_build_batch(buf, len, &params, seed, k, c, scratch,
                                                                      scratch_len);
                                   },
                                   [&](const std::uint64_t *k, std::size_t c) {
                                       return sketch_fuse_build_u64_batch(buf, len, &params, seed, k, c, scratch,
                                                                          scratch_len);
                                   }));
    }
    static result<view_type> try_build_into(void *buf, std::size_t len, void *scratch, std::size_t scratch_len,
                                            const packed_source &keys, const fuse_params &params,
                                            std::uint64_t seed = 0) noexcept {
        return built(buf, len,
                     detail::st(sketch_fuse_build_packed(buf, len, &params, seed, keys.data, keys.data_len,
                                                         keys.offsets, keys.count, scratch, scratch_len)));
    }
    /// The same from precomputed hashes (sketches::hash(key, seed)).
    static result<view_type> try_build_hashes_into(void *buf, std::size_t len, void *scratch, std::size_t scratch_len,
                                                   array_source<const std::uint64_t> hashes, const fuse_params &params,
                                                   std::uint64_t seed = 0) noexcept {
        return built(buf, len,
                     detail::st(sketch_fuse_build_hash_batch(buf, len, &params, seed, hashes.data(), hashes.size(),
                                                             scratch, scratch_len)));
    }

    /// Builds an owning filter of `keys` (scratch allocated for the call).
    template <class Keys, detail::if_keys<Keys> = 0>
    static result<owned_type> try_build(const Keys &keys, const fuse_params &params, std::uint64_t seed = 0) noexcept {
        return build_owned(params, [&](void *buf, std::size_t len, void *w, std::size_t wl) {
            return try_build_into(buf, len, w, wl, keys, params, seed).status;
        });
    }
    /// Plans for the keys' count at `fpr`, then builds.
    template <class Keys, detail::if_keys<Keys> = 0>
    static result<owned_type> try_build(const Keys &keys, double fpr, std::uint64_t seed = 0) noexcept {
        result<fuse_params> p = try_plan(detail::key_count(keys), fpr);
        if (!p.ok()) return result<owned_type>{p.status, {}};
        return try_build(keys, p.value, seed);
    }
    static result<owned_type> try_build(const packed_source &keys, const fuse_params &params,
                                        std::uint64_t seed = 0) noexcept {
        return build_owned(params, [&](void *buf, std::size_t len, void *w, std::size_t wl) {
            return try_build_into(buf, len, w, wl, keys, params, seed).status;
        });
    }
    static result<owned_type> try_build(const packed_source &keys, double fpr, std::uint64_t seed = 0) noexcept {
        result<fuse_params> p = try_plan(keys.count, fpr);
        if (!p.ok()) return result<owned_type>{p.status, {}};
        return try_build(keys, p.value, seed);
    }
    static result<owned_type> try_build_hashes(array_source<const std::uint64_t> hashes, const fuse_params &params,
                                               std::uint64_t seed = 0) noexcept {
        return build_owned(params, [&](void *buf, std::size_t len, void *w, std::size_t wl) {
            return try_build_hashes_into(buf, len, w, wl, hashes, params, seed).status;
        });
    }
    static result<owned_type> try_build_hashes(array_source<const std::uint64_t> hashes, double fpr,
                                               std::uint64_t seed = 0) noexcept {
        result<fuse_params> p = try_plan(hashes.size(), fpr);
        if (!p.ok()) return result<owned_type>{p.status, {}};
        return try_build_hashes(hashes, p.value, seed);
    }

    SKETCHES_DETAIL_CONTAINS_OPS(contains, sketch_fuse_contains)

#if SKETCHES_EXCEPTIONS
    [[nodiscard]] static fuse_params plan(std::uint64_t keys, double fpr) { return base::value(try_plan(keys, fpr)); }
    [[nodiscard]] static fuse_params plan_bits(std::uint64_t keys, std::uint32_t fingerprint_bits) {
        return base::value(try_plan_bits(keys, fingerprint_bits));
    }
    [[nodiscard]] static std::uint64_t image_size(const fuse_params &params) {
        return base::value(try_image_size(params));
    }
    [[nodiscard]] static std::uint64_t scratch_size(const fuse_params &params) {
        return base::value(try_scratch_size(params));
    }
    template <class Keys, detail::if_keys<Keys> = 0>
    [[nodiscard]] static owned_type build(const Keys &keys, const fuse_params &params, std::uint64_t seed = 0) {
        return base::value(try_build(keys, params, seed));
    }
    template <class Keys, detail::if_keys<Keys> = 0>
    [[nodiscard]] static owned_type build(const Keys &keys, double fpr, std::uint64_t seed = 0) {
        return base::value(try_build(keys, fpr, seed));
    }
    [[nodiscard]] static owned_type build(const packed_source &keys, const fuse_params &params, std::uint64_t seed = 0) {
        return base::value(try_build(keys, params, seed));
    }
    [[nodiscard]] static owned_type build(const packed_source &keys, double fpr, std::uint64_t seed = 0) {
        return base::value(try_build(keys, fpr, seed));
    }
    [[nodiscard]] static owned_type build_hashes(array_source<const std::uint64_t> hashes, const fuse_params &params,
                                                 std::uint64_t seed = 0) {
        return base::value(try_build_hashes(hashes, params, seed));
    }
    [[nodiscard]] static owned_type build_hashes(array_source<const std::uint64_t> hashes, double fpr,
                                                 std::uint64_t seed = 0) {
        return base::value(try_build_hashes(hashes, fpr, seed));
    }
    template <class Keys, detail::if_keys<Keys> = 0>
    static view_type build_into(void *buf, std::size_t len, void *scratch, std::size_t scratch_len, const Keys &keys,
                                const fuse_params &params, std::uint64_t seed = 0) {
        return base::value(try_build_into(buf, len, scratch, scratch_len, keys, params, seed));
    }
    static view_type build_into(void *buf, std::size_t len, void *scratch, std::size_t scratch_len,
                                const packed_source &keys, const fuse_params &params, std::uint64_t seed = 0) {
        return base::value(try_build_into(buf, len, scratch, scratch_len, keys, params, seed));
    }
    static view_type build_hashes_into(void *buf, std::size_t len, void *scratch, std::size_t scratch_len,
                                       array_source<const std::uint64_t> hashes, const fuse_params &params,
                                       std::uint64_t seed = 0) {
        return base::value(try_build_hashes_into(buf, len, scratch, scratch_len, hashes, params, seed));
    }
    SKETCHES_DETAIL_CONTAINS_THROWING(contains)
#endif

  private:
    static result<view_type> built(void *buf, std::size_t len, status s) noexcept {
        result<view_type> r;
        r.status = s;
        if (r.ok()) r.value = view_type(buf, len);
        return r;
    }
    /// Allocates the image and the scratch, then runs `build(buf, len, scratch, scratch_len)`.
    template <class Build>
    static result<owned_type> build_owned(const fuse_params &params, Build &&build) noexcept {
        result<std::uint64_t> work = try_scratch_size(params);
        if (!work.ok()) return result<owned_type>{work.status, {}};
        detail::owned_storage scratch;
        status s = detail::owned_storage::allocate(work.value, scratch);
        if (s != status::ok) return result<owned_type>{s, {}};
        return detail::create_owned<owned_type>(try_image_size(params), [&](void *buf, std::size_t len) {
            return static_cast<sketch_status>(build(buf, len, scratch.data(), scratch.size()));
        });
    }
};
using fuse_filter = basic_fuse<detail::owned_storage>;
using fuse_view = basic_fuse<detail::ref_storage<true>>;
using fuse_const_view = basic_fuse<detail::ref_storage<false>>;

/* ---------------- ExaLogLog ---------------- */

/// ExaLogLog (sketch_ell_*): t = 2 with d = 20 (28-bit registers) or d = 24
/// (32-bit), precision 2..24; martingale estimate while unmerged,
/// maximum likelihood from the registers; exact merge and reduction to a
/// lower precision or d. make_params(p [, d]), plan(relative_error [, d]),
/// image_size(params), create(params [, seed]), init(buf, len, params [, seed]);
/// add -> changed, add_hash, add_batch, add_hash_batch; estimate,
/// ml_estimate, martingale_estimate (NaN after a merge), merge,
/// downsize(params), downsize_into(params, buf, len). clear() is the C reset.
/// Shared by every family: stats, clear, to_bytes / export_to / write_to, from_bytes /
/// read_from / import_size / verify, clone, data / size / bytes, view / const_view;
/// every operation also has a try_ form.
template <class Storage>
class basic_ell : public detail::sketch_base<basic_ell, detail::ell_api, Storage> {
    using base = detail::sketch_base<basic_ell, detail::ell_api, Storage>;

  public:
    SKETCHES_DETAIL_FAMILY_TYPES
    using params_type = ell_params;

    /// The parameters {t = 2, d, p}: nothing is checked until they are used.
    [[nodiscard]] static constexpr ell_params make_params(std::uint32_t p, std::uint32_t d = 20) noexcept {
        return ell_params{2, d, p, 0};
    }
    /// The smallest precision whose maximum-likelihood error is at most `relative_error`.
    static result<ell_params> try_plan(double relative_error, std::uint32_t d = 20) noexcept {
        result<ell_params> r;
        r.status = detail::st(sketch_ell_plan(relative_error, d, &r.value));
        return r;
    }
    static result<std::uint64_t> try_image_size(const ell_params &params) noexcept {
        result<std::uint64_t> r;
        r.status = detail::st(sketch_ell_size(&params, &r.value));
        return r;
    }
    static result<owned_type> try_create(const ell_params &params, std::uint64_t seed = 0) noexcept {
        return detail::create_owned<owned_type>(try_image_size(params), [&](void *buf, std::size_t len) {
            return sketch_ell_init(buf, len, &params, seed);
        });
    }
    static result<view_type> try_init(void *buf, std::size_t len, const ell_params &params,
                                      std::uint64_t seed = 0) noexcept {
        return detail::init_view<view_type>(buf, len, [&] { return sketch_ell_init(buf, len, &params, seed); });
    }

    /// Adds a key; the value is true when a register changed.
    SKETCHES_DETAIL_ADD_BOOL_OPS(add, sketch_ell_add)
    SKETCHES_DETAIL_BATCH_PLAIN_OPS(sketch_ell)
    /// Martingale estimate while unmerged (O(1)), else maximum likelihood.
    result<double> try_estimate() const noexcept {
        double out = 0;
        return this->make(sketch_ell_estimate(this->data(), this->size(), &out), out);
    }
    /// Maximum likelihood from the registers alone. O(2^p).
    result<double> try_ml_estimate() const noexcept {
        double out = 0;
        return this->make(sketch_ell_ml_estimate(this->data(), this->size(), &out), out);
    }
    /// The martingale estimate; NaN once the sketch absorbed a merge.
    result<double> try_martingale_estimate() const noexcept {
        double out = 0;
        return this->make(sketch_ell_martingale_estimate(this->data(), this->size(), &out), out);
    }
    /// Union; `other`'s precision and d must be at least this one's.
    SKETCHES_DETAIL_MERGE_OP(merge, sketch_ell_merge)
    /// A copy reduced to `params` (same t, precision and d at most this one's).
    result<owned_type> try_downsize(const ell_params &params) const noexcept {
        return detail::create_owned<owned_type>(try_image_size(params), [&](void *buf, std::size_t len) {
            return sketch_ell_downsize(this->data(), this->size(), buf, len, &params);
        });
    }
    /// The same into caller memory (at least image_size(params) bytes).
    result<view_type> try_downsize_into(const ell_params &params, void *buf, std::size_t len) const noexcept {
        return detail::init_view<view_type>(
            buf, len, [&] { return sketch_ell_downsize(this->data(), this->size(), buf, len, &params); });
    }

#if SKETCHES_EXCEPTIONS
    [[nodiscard]] static ell_params plan(double relative_error, std::uint32_t d = 20) {
        return base::value(try_plan(relative_error, d));
    }
    [[nodiscard]] static std::uint64_t image_size(const ell_params &params) {
        return base::value(try_image_size(params));
    }
    [[nodiscard]] static owned_type create(const ell_params &params, std::uint64_t seed = 0) {
        return base::value(try_create(params, seed));
    }
    [[nodiscard]] static view_type init(void *buf, std::size_t len, const ell_params &params, std::uint64_t seed = 0) {
        return base::value(try_init(buf, len, params, seed));
    }
    SKETCHES_DETAIL_ADD_BOOL_THROWING(add)
    SKETCHES_DETAIL_BATCH_PLAIN_THROWING
    [[nodiscard]] double estimate() const { return base::value(try_estimate()); }
    [[nodiscard]] double ml_estimate() const { return base::value(try_ml_estimate()); }
    [[nodiscard]] double martingale_estimate() const { return base::value(try_martingale_estimate()); }
    SKETCHES_DETAIL_MERGE_THROWING(merge)
    [[nodiscard]] owned_type downsize(const ell_params &params) const { return base::value(try_downsize(params)); }
    [[nodiscard]] view_type downsize_into(const ell_params &params, void *buf, std::size_t len) const {
        return base::value(try_downsize_into(params, buf, len));
    }
#endif
};
using ell_sketch = basic_ell<detail::owned_storage>;
using ell_view = basic_ell<detail::ref_storage<true>>;
using ell_const_view = basic_ell<detail::ref_storage<false>>;

/* ---------------- Streams of images of any family ---------------- */

/// The owning sketch of any family, as read_sketch gives it: alternative
/// index() holds the family of id index() + 1 (SKETCH_FAMILY_BLOOM is 1, ...,
/// SKETCH_FAMILY_EXALOGLOG 11); std::visit or std::get_if dispatch on it.
using any_sketch = std::variant<bloom_filter, sbbf_filter, counting_filter, cuckoo_filter, hll_sketch, ull_sketch,
                                countmin_sketch, topk_sketch, minhash_sketch, fuse_filter, ell_sketch>;

namespace detail {
/* Checks the image read for family Owned (Api) and stores the sketch in `r`. */
template <class Owned, class Api>
void adopt_any(read_result<any_sketch> &r, owned_storage &&bytes) noexcept {
    result<Owned> sketch = adopt_image<Api, Owned>(std::move(bytes));
    r.status = sketch.status;
    if (sketch.ok()) r.value.emplace(std::in_place_type<Owned>, std::move(sketch.value));
}

/// try_read_sketch's body; `thrown` receives what the stream threw with badbit.
inline read_result<any_sketch> read_any(std::istream &in, stream_exception &thrown) noexcept {
    read_result<any_sketch> r;
    image_read img = read_image(in, 0);
    note_read(r, img);
    thrown = img.thrown;
    if (img.end) return r;
    r.status = img.status;
    if (!r.ok()) return r;
    switch (img.family_id) {
    case SKETCH_FAMILY_BLOOM: adopt_any<bloom_filter, bloom_api>(r, std::move(img.bytes)); break;
    case SKETCH_FAMILY_SPLIT_BLOCK_BLOOM: adopt_any<sbbf_filter, sbbf_api>(r, std::move(img.bytes)); break;
    case SKETCH_FAMILY_COUNTING_BLOOM: adopt_any<counting_filter, counting_api>(r, std::move(img.bytes)); break;
    case SKETCH_FAMILY_CUCKOO: adopt_any<cuckoo_filter, cuckoo_api>(r, std::move(img.bytes)); break;
    case SKETCH_FAMILY_HYPERLOGLOG: adopt_any<hll_sketch, hll_api>(r, std::move(img.bytes)); break;
    case SKETCH_FAMILY_ULTRALOGLOG: adopt_any<ull_sketch, ull_api>(r, std::move(img.bytes)); break;
    case SKETCH_FAMILY_COUNT_MIN: adopt_any<countmin_sketch, countmin_api>(r, std::move(img.bytes)); break;
    case SKETCH_FAMILY_TOPK: adopt_any<topk_sketch, topk_api>(r, std::move(img.bytes)); break;
    case SKETCH_FAMILY_MINHASH: adopt_any<minhash_sketch, minhash_api>(r, std::move(img.bytes)); break;
    case SKETCH_FAMILY_BINARY_FUSE: adopt_any<fuse_filter, fuse_api>(r, std::move(img.bytes)); break;
    case SKETCH_FAMILY_EXALOGLOG: adopt_any<ell_sketch, ell_api>(r, std::move(img.bytes)); break;
    default: r.status = status::corrupt_header; break; // read_image refuses unknown ids first
    }
    return r;
}
} // namespace detail

/// Reads exactly one exported image of any family from `in`, as each
/// family's try_read_from does (the same bytes taken, the same checks, the
/// same memory bound), and gives the owning sketch of the family its header
/// names, for streams whose images' families vary. value is std::nullopt
/// with status::ok at a clean end of the stream. Errors: those of
/// try_read_from, but wrong_family; an unknown family id is
/// status::corrupt_header ("unknown family id N"), as sketch_image_inspect
/// and the other bindings report it. Thread-safety: keeps no state; one
/// stream must not be read by two threads at once.
inline read_result<any_sketch> try_read_sketch(std::istream &in) noexcept {
    detail::stream_exception thrown{};
    return detail::read_any(in, thrown);
}
#if SKETCHES_EXCEPTIONS
/// try_read_sketch, throwing: the sketch, or std::nullopt at a clean end of
/// the stream (`while (auto s = sketches::read_sketch(in))` reads every
/// image). Throws as bloom_filter::read_from does, the sketches::error
/// naming the image's family when the header named a known one ("hll:
/// <checksum mismatch text>"), none otherwise.
[[nodiscard]] inline std::optional<any_sketch> read_sketch(std::istream &in) {
    detail::stream_exception thrown{};
    read_result<any_sketch> r = detail::read_any(in, thrown);
    const char *family = detail::family_name(r.family_id);
    return detail::read_value(std::move(r), thrown, family);
}
#endif

#undef SKETCHES_DETAIL_ADD_BOOL_OPS
#undef SKETCHES_DETAIL_ADD_BOOL_THROWING
#undef SKETCHES_DETAIL_ADD_BOOL_TOKEN_OPS
#undef SKETCHES_DETAIL_BATCH_BOOL_OPS
#undef SKETCHES_DETAIL_BATCH_BOOL_THROWING
#undef SKETCHES_DETAIL_BATCH_PLAIN_OPS
#undef SKETCHES_DETAIL_BATCH_PLAIN_THROWING
#undef SKETCHES_DETAIL_CAPACITY_OPS
#undef SKETCHES_DETAIL_CAPACITY_THROWING
#undef SKETCHES_DETAIL_CONCURRENT_COUNTER_OPS
#undef SKETCHES_DETAIL_CONCURRENT_COUNTER_THROWING
#undef SKETCHES_DETAIL_CONCURRENT_FILTER_OPS
#undef SKETCHES_DETAIL_CONCURRENT_FILTER_THROWING
#undef SKETCHES_DETAIL_CONTAINS_BATCH_OPS
#undef SKETCHES_DETAIL_CONTAINS_OPS
#undef SKETCHES_DETAIL_CONTAINS_THROWING
#undef SKETCHES_DETAIL_CONTAINS_TOKEN_OPS
#undef SKETCHES_DETAIL_KEY_BATCH_BOOL_OPS
#undef SKETCHES_DETAIL_KEY_BATCH_BOOL_THROWING
#undef SKETCHES_DETAIL_KEY_BATCH_PLAIN_OPS
#undef SKETCHES_DETAIL_KEY_BATCH_PLAIN_THROWING
#undef SKETCHES_DETAIL_MERGE_OP
#undef SKETCHES_DETAIL_MERGE_THROWING
#undef SKETCHES_DETAIL_REFUSE_KEYS
#undef SKETCHES_DETAIL_REFUSE_WEIGHTED_KEYS
#undef SKETCHES_DETAIL_WIDEN_KEYS
#undef SKETCHES_DETAIL_WIDEN_WEIGHTED_KEYS
#undef SKETCHES_DETAIL_REFUSE_POINTER_AND_LENGTH
#undef SKETCHES_DETAIL_FAMILY_TYPES

} // namespace SKETCHES_DETAIL_MODE
} // namespace sketches

#endif /* SKETCHES_HPP */
