package sketches

// The only cgo file of the package: thin Go wrappers over the C functions of
// include/sketches.h. Everything above this layer is plain Go.
//
// Linking: by default pkg-config's "sketches" (libsketches.so, found at run
// time through its SONAME); with the build tag sketches_static,
// "sketches-static" (libsketches.a, nothing to find at run time). The
// static variant also defines a macro: Go's build cache keys cgo packages
// on their #cgo flags but not on pkg-config's output, so without it the
// two variants would share cached objects and link flags.
//
// Every C function here keeps no pointer after it returns and never calls
// back into Go (the header's conventions), so each has #cgo nocallback, and
// #cgo noescape except the two that hand a pointer into the image back to Go
// (sketch_sbbf_bitset, sketch_topk_list): noescape is only legal when no Go
// pointer escapes through the function, which includes returning it. A test
// (TestCgoDirectives) checks that every function called here is listed.

/*
#cgo !sketches_static pkg-config: sketches
#cgo sketches_static pkg-config: sketches-static
#cgo sketches_static CPPFLAGS: -DSKETCHES_GO_STATIC=1
#include <sketches.h>

// Single-key shims: the library's functions with the image and key typed as
// bytes instead of void. cgo then knows the memory holds no Go pointers and
// skips the run-time pointer check (cgocheck=1, on by default), which cost
// about a quarter of a single-key call; the rule it checks still holds.
// The Bloom, split-block and HLL shims call the _with_token forms: the
// token (a sketch_token, no pointers either) is the Go type's tok field.
#define SK_KEY_BOOL_TOKEN(n, f) static inline sketch_status n(uint8_t *b, size_t l, const sketch_token *t, const uint8_t *k, size_t kl, bool *o) { return f(b, l, t, k, kl, o); }
#define SK_U64_BOOL_TOKEN(n, f) static inline sketch_status n(uint8_t *b, size_t l, const sketch_token *t, uint64_t k, bool *o) { return f(b, l, t, k, o); }
#define SK_KEY_BOOL(n, f) static inline sketch_status n(uint8_t *b, size_t l, const uint8_t *k, size_t kl, bool *o) { return f(b, l, k, kl, o); }
#define SK_U64_BOOL(n, f) static inline sketch_status n(uint8_t *b, size_t l, uint64_t k, bool *o) { return f(b, l, k, o); }
#define SK_KEY(n, f) static inline sketch_status n(uint8_t *b, size_t l, const uint8_t *k, size_t kl) { return f(b, l, k, kl); }
#define SK_U64(n, f) static inline sketch_status n(uint8_t *b, size_t l, uint64_t k) { return f(b, l, k); }
#define SK_KEY_WEIGHT(n, f) static inline sketch_status n(uint8_t *b, size_t l, const uint8_t *k, size_t kl, uint64_t w) { return f(b, l, k, kl, w); }
#define SK_U64_WEIGHT(n, f) static inline sketch_status n(uint8_t *b, size_t l, uint64_t k, uint64_t w) { return f(b, l, k, w); }
#define SK_KEY_COUNT(n, f) static inline sketch_status n(uint8_t *b, size_t l, const uint8_t *k, size_t kl, uint64_t *o) { return f(b, l, k, kl, o); }
#define SK_U64_COUNT(n, f) static inline sketch_status n(uint8_t *b, size_t l, uint64_t k, uint64_t *o) { return f(b, l, k, o); }
SK_KEY_BOOL_TOKEN(sk_bloom_add, sketch_bloom_add_with_token)
SK_U64_BOOL_TOKEN(sk_bloom_add_u64, sketch_bloom_add_u64_with_token)
SK_KEY_BOOL_TOKEN(sk_bloom_contains, sketch_bloom_contains_with_token)
SK_U64_BOOL_TOKEN(sk_bloom_contains_u64, sketch_bloom_contains_u64_with_token)
SK_KEY_BOOL_TOKEN(sk_sbbf_add, sketch_sbbf_add_with_token)
SK_U64_BOOL_TOKEN(sk_sbbf_add_u64, sketch_sbbf_add_u64_with_token)
SK_KEY_BOOL_TOKEN(sk_sbbf_contains, sketch_sbbf_contains_with_token)
SK_U64_BOOL_TOKEN(sk_sbbf_contains_u64, sketch_sbbf_contains_u64_with_token)
SK_U64_BOOL_TOKEN(sk_sbbf_add_hash, sketch_sbbf_add_hash_with_token)
SK_U64_BOOL_TOKEN(sk_sbbf_contains_hash, sketch_sbbf_contains_hash_with_token)
// The precomputed-hash forms of every family that has them (split-block
// above): the hash is sketch_hash of the key with the image's seed.
SK_U64_BOOL_TOKEN(sk_bloom_add_hash, sketch_bloom_add_hash_with_token)
SK_U64_BOOL_TOKEN(sk_bloom_contains_hash, sketch_bloom_contains_hash_with_token)
SK_U64_BOOL_TOKEN(sk_hll_add_hash, sketch_hll_add_hash_with_token)
SK_U64_BOOL(sk_counting_add_hash, sketch_counting_add_hash)
SK_U64_BOOL(sk_counting_contains_hash, sketch_counting_contains_hash)
SK_U64(sk_counting_remove_hash, sketch_counting_remove_hash)
SK_U64(sk_cuckoo_add_hash, sketch_cuckoo_add_hash)
SK_U64_BOOL(sk_cuckoo_contains_hash, sketch_cuckoo_contains_hash)
SK_U64(sk_cuckoo_remove_hash, sketch_cuckoo_remove_hash)
SK_U64_BOOL(sk_ull_add_hash, sketch_ull_add_hash)
SK_U64_BOOL(sk_ell_add_hash, sketch_ell_add_hash)
SK_U64_BOOL(sk_minhash_add_hash, sketch_minhash_add_hash)
SK_U64_BOOL(sk_fuse_contains_hash, sketch_fuse_contains_hash)
SK_U64_WEIGHT(sk_countmin_add_hash, sketch_countmin_add_hash)
SK_U64_COUNT(sk_countmin_estimate_hash, sketch_countmin_estimate_hash)
SK_U64_BOOL(sk_bloom_add_concurrent_hash, sketch_bloom_add_concurrent_hash)
SK_U64_BOOL(sk_bloom_contains_concurrent_hash, sketch_bloom_contains_concurrent_hash)
SK_U64_BOOL(sk_sbbf_add_concurrent_hash, sketch_sbbf_add_concurrent_hash)
SK_U64_BOOL(sk_sbbf_contains_concurrent_hash, sketch_sbbf_contains_concurrent_hash)
SK_U64_BOOL(sk_hll_add_concurrent_hash, sketch_hll_add_concurrent_hash)
SK_U64_BOOL(sk_ull_add_concurrent_hash, sketch_ull_add_concurrent_hash)
SK_KEY_BOOL(sk_counting_add, sketch_counting_add)
SK_U64_BOOL(sk_counting_add_u64, sketch_counting_add_u64)
SK_KEY_BOOL(sk_counting_contains, sketch_counting_contains)
SK_U64_BOOL(sk_counting_contains_u64, sketch_counting_contains_u64)
SK_KEY(sk_counting_remove, sketch_counting_remove)
SK_U64(sk_counting_remove_u64, sketch_counting_remove_u64)
SK_KEY(sk_cuckoo_add, sketch_cuckoo_add)
SK_U64(sk_cuckoo_add_u64, sketch_cuckoo_add_u64)
SK_KEY_BOOL(sk_cuckoo_contains, sketch_cuckoo_contains)
SK_U64_BOOL(sk_cuckoo_contains_u64, sketch_cuckoo_contains_u64)
SK_KEY(sk_cuckoo_remove, sketch_cuckoo_remove)
SK_U64(sk_cuckoo_remove_u64, sketch_cuckoo_remove_u64)
SK_KEY_BOOL_TOKEN(sk_hll_add, sketch_hll_add_with_token)
SK_U64_BOOL_TOKEN(sk_hll_add_u64, sketch_hll_add_u64_with_token)
SK_KEY_BOOL(sk_ull_add, sketch_ull_add)
SK_U64_BOOL(sk_ull_add_u64, sketch_ull_add_u64)
SK_KEY_BOOL(sk_ell_add, sketch_ell_add)
SK_U64_BOOL(sk_ell_add_u64, sketch_ell_add_u64)
SK_KEY_BOOL(sk_fuse_contains, sketch_fuse_contains)
SK_U64_BOOL(sk_fuse_contains_u64, sketch_fuse_contains_u64)
SK_KEY_BOOL(sk_minhash_add, sketch_minhash_add)
SK_U64_BOOL(sk_minhash_add_u64, sketch_minhash_add_u64)
SK_KEY_WEIGHT(sk_countmin_add, sketch_countmin_add)
SK_U64_WEIGHT(sk_countmin_add_u64, sketch_countmin_add_u64)
SK_KEY_COUNT(sk_countmin_estimate, sketch_countmin_estimate)
SK_U64_COUNT(sk_countmin_estimate_u64, sketch_countmin_estimate_u64)
SK_KEY_WEIGHT(sk_topk_add, sketch_topk_add)
SK_U64_WEIGHT(sk_topk_add_u64, sketch_topk_add_u64)
static inline sketch_status sk_cuckoo_count(uint8_t *b, size_t l, const uint8_t *k, size_t kl, uint32_t *o) { return sketch_cuckoo_count(b, l, k, kl, o); }
static inline sketch_status sk_topk_estimate(uint8_t *b, size_t l, const uint8_t *k, size_t kl, struct sketch_topk_key_estimate *o) { return sketch_topk_estimate(b, l, k, kl, o); }
// The byte-key hashes, with the key typed as bytes (see above).
static inline uint64_t sk_hash_xxh64(const uint8_t *k, size_t kl, uint64_t seed) { return sketch_hash_xxh64(k, kl, seed); }
static inline uint64_t sk_hash(const uint8_t *k, size_t kl, uint64_t seed) { return sketch_hash(k, kl, seed); }
static inline uint64_t sk_parquet_hash_bytes(const uint8_t *k, size_t kl) { return sketch_parquet_hash_bytes(k, kl); }
// The calls that take bytes a caller hands in (an image to import,
// verify or inspect, a buffer to export into, a Parquet bitset), typed as
// bytes for the same reason: cgo's check of a void* argument scans the
// whole Go object the bytes lie in, and panics when that object also
// holds pointers (a byte array field of a struct), which cgo's rules
// allow, since the memory passed is the array.
#define SK_IMPORT_SIZE(n, f) static inline sketch_status n(const uint8_t *s, size_t sl, size_t *o) { return f(s, sl, o); }
#define SK_IMPORT(n, f) static inline sketch_status n(const uint8_t *s, size_t sl, uint8_t *d, size_t dl) { return f(s, sl, d, dl); }
#define SK_VERIFY(n, f) static inline sketch_status n(const uint8_t *b, size_t l) { return f(b, l); }
#define SK_EXPORT(n, f) static inline sketch_status n(const uint8_t *b, size_t l, uint8_t *o, size_t ol, size_t *w) { return f(b, l, o, ol, w); }
SK_IMPORT_SIZE(sk_bloom_import_size, sketch_bloom_import_size)
SK_IMPORT(sk_bloom_import, sketch_bloom_import)
SK_VERIFY(sk_bloom_verify, sketch_bloom_verify)
SK_EXPORT(sk_bloom_export, sketch_bloom_export)
SK_IMPORT_SIZE(sk_sbbf_import_size, sketch_sbbf_import_size)
SK_IMPORT(sk_sbbf_import, sketch_sbbf_import)
SK_VERIFY(sk_sbbf_verify, sketch_sbbf_verify)
SK_EXPORT(sk_sbbf_export, sketch_sbbf_export)
SK_IMPORT_SIZE(sk_counting_import_size, sketch_counting_import_size)
SK_IMPORT(sk_counting_import, sketch_counting_import)
SK_VERIFY(sk_counting_verify, sketch_counting_verify)
SK_EXPORT(sk_counting_export, sketch_counting_export)
SK_IMPORT_SIZE(sk_cuckoo_import_size, sketch_cuckoo_import_size)
SK_IMPORT(sk_cuckoo_import, sketch_cuckoo_import)
SK_VERIFY(sk_cuckoo_verify, sketch_cuckoo_verify)
SK_EXPORT(sk_cuckoo_export, sketch_cuckoo_export)
SK_IMPORT_SIZE(sk_hll_import_size, sketch_hll_import_size)
SK_IMPORT(sk_hll_import, sketch_hll_import)
SK_VERIFY(sk_hll_verify, sketch_hll_verify)
SK_EXPORT(sk_hll_export, sketch_hll_export)
SK_IMPORT_SIZE(sk_ull_import_size, sketch_ull_import_size)
SK_IMPORT(sk_ull_import, sketch_ull_import)
SK_VERIFY(sk_ull_verify, sketch_ull_verify)
SK_EXPORT(sk_ull_export, sketch_ull_export)
SK_IMPORT_SIZE(sk_countmin_import_size, sketch_countmin_import_size)
SK_IMPORT(sk_countmin_import, sketch_countmin_import)
SK_VERIFY(sk_countmin_verify, sketch_countmin_verify)
SK_EXPORT(sk_countmin_export, sketch_countmin_export)
SK_IMPORT_SIZE(sk_topk_import_size, sketch_topk_import_size)
SK_IMPORT(sk_topk_import, sketch_topk_import)
SK_VERIFY(sk_topk_verify, sketch_topk_verify)
SK_EXPORT(sk_topk_export, sketch_topk_export)
SK_IMPORT_SIZE(sk_minhash_import_size, sketch_minhash_import_size)
SK_IMPORT(sk_minhash_import, sketch_minhash_import)
SK_VERIFY(sk_minhash_verify, sketch_minhash_verify)
SK_EXPORT(sk_minhash_export, sketch_minhash_export)
SK_IMPORT_SIZE(sk_fuse_import_size, sketch_fuse_import_size)
SK_IMPORT(sk_fuse_import, sketch_fuse_import)
SK_VERIFY(sk_fuse_verify, sketch_fuse_verify)
SK_EXPORT(sk_fuse_export, sketch_fuse_export)
SK_IMPORT_SIZE(sk_ell_import_size, sketch_ell_import_size)
SK_IMPORT(sk_ell_import, sketch_ell_import)
SK_VERIFY(sk_ell_verify, sketch_ell_verify)
SK_EXPORT(sk_ell_export, sketch_ell_export)
static inline sketch_status sk_image_inspect(const uint8_t *b, size_t l, struct sketch_image_info *o) { return sketch_image_inspect(b, l, o); }
static inline sketch_status sk_image_inspect_header(const uint8_t *b, size_t l, struct sketch_image_info *o) { return sketch_image_inspect_header(b, l, o); }
static inline sketch_status sk_sbbf_load_parquet_bitset(uint8_t *b, size_t l, const uint8_t *bits, size_t bl, const struct sketch_sbbf_params *p) { return sketch_sbbf_load_parquet_bitset(b, l, bits, bl, p); }
// The concurrent single-key calls (atomic operations on the image's words;
// no tokens: they validate the immutable header on every call).
SK_KEY_BOOL(sk_bloom_add_concurrent, sketch_bloom_add_concurrent)
SK_U64_BOOL(sk_bloom_add_concurrent_u64, sketch_bloom_add_concurrent_u64)
SK_KEY_BOOL(sk_bloom_contains_concurrent, sketch_bloom_contains_concurrent)
SK_U64_BOOL(sk_bloom_contains_concurrent_u64, sketch_bloom_contains_concurrent_u64)
SK_KEY_BOOL(sk_sbbf_add_concurrent, sketch_sbbf_add_concurrent)
SK_U64_BOOL(sk_sbbf_add_concurrent_u64, sketch_sbbf_add_concurrent_u64)
SK_KEY_BOOL(sk_sbbf_contains_concurrent, sketch_sbbf_contains_concurrent)
SK_U64_BOOL(sk_sbbf_contains_concurrent_u64, sketch_sbbf_contains_concurrent_u64)
SK_KEY_BOOL(sk_hll_add_concurrent, sketch_hll_add_concurrent)
SK_U64_BOOL(sk_hll_add_concurrent_u64, sketch_hll_add_concurrent_u64)
SK_KEY_BOOL(sk_ull_add_concurrent, sketch_ull_add_concurrent)
SK_U64_BOOL(sk_ull_add_concurrent_u64, sketch_ull_add_concurrent_u64)
#cgo noescape sk_bloom_add
#cgo nocallback sk_bloom_add
#cgo noescape sk_bloom_add_u64
#cgo nocallback sk_bloom_add_u64
#cgo noescape sk_bloom_contains
#cgo nocallback sk_bloom_contains
#cgo noescape sk_bloom_contains_u64
#cgo nocallback sk_bloom_contains_u64
#cgo noescape sk_sbbf_add
#cgo nocallback sk_sbbf_add
#cgo noescape sk_sbbf_add_u64
#cgo nocallback sk_sbbf_add_u64
#cgo noescape sk_sbbf_contains
#cgo nocallback sk_sbbf_contains
#cgo noescape sk_sbbf_contains_u64
#cgo nocallback sk_sbbf_contains_u64
#cgo noescape sk_sbbf_add_hash
#cgo nocallback sk_sbbf_add_hash
#cgo noescape sk_sbbf_contains_hash
#cgo nocallback sk_sbbf_contains_hash
#cgo noescape sk_bloom_add_hash
#cgo nocallback sk_bloom_add_hash
#cgo noescape sk_bloom_contains_hash
#cgo nocallback sk_bloom_contains_hash
#cgo noescape sk_hll_add_hash
#cgo nocallback sk_hll_add_hash
#cgo noescape sk_counting_add_hash
#cgo nocallback sk_counting_add_hash
#cgo noescape sk_counting_contains_hash
#cgo nocallback sk_counting_contains_hash
#cgo noescape sk_counting_remove_hash
#cgo nocallback sk_counting_remove_hash
#cgo noescape sk_cuckoo_add_hash
#cgo nocallback sk_cuckoo_add_hash
#cgo noescape sk_cuckoo_contains_hash
#cgo nocallback sk_cuckoo_contains_hash
#cgo noescape sk_cuckoo_remove_hash
#cgo nocallback sk_cuckoo_remove_hash
#cgo noescape sk_ull_add_hash
#cgo nocallback sk_ull_add_hash
#cgo noescape sk_ell_add_hash
#cgo nocallback sk_ell_add_hash
#cgo noescape sk_minhash_add_hash
#cgo nocallback sk_minhash_add_hash
#cgo noescape sk_fuse_contains_hash
#cgo nocallback sk_fuse_contains_hash
#cgo noescape sk_countmin_add_hash
#cgo nocallback sk_countmin_add_hash
#cgo noescape sk_countmin_estimate_hash
#cgo nocallback sk_countmin_estimate_hash
#cgo noescape sk_bloom_add_concurrent_hash
#cgo nocallback sk_bloom_add_concurrent_hash
#cgo noescape sk_bloom_contains_concurrent_hash
#cgo nocallback sk_bloom_contains_concurrent_hash
#cgo noescape sk_sbbf_add_concurrent_hash
#cgo nocallback sk_sbbf_add_concurrent_hash
#cgo noescape sk_sbbf_contains_concurrent_hash
#cgo nocallback sk_sbbf_contains_concurrent_hash
#cgo noescape sk_hll_add_concurrent_hash
#cgo nocallback sk_hll_add_concurrent_hash
#cgo noescape sk_ull_add_concurrent_hash
#cgo nocallback sk_ull_add_concurrent_hash
#cgo noescape sketch_bloom_contains_concurrent_hash_batch
#cgo nocallback sketch_bloom_contains_concurrent_hash_batch
#cgo noescape sketch_sbbf_contains_concurrent_hash_batch
#cgo nocallback sketch_sbbf_contains_concurrent_hash_batch
#cgo noescape sketch_fuse_build_hash_batch
#cgo nocallback sketch_fuse_build_hash_batch
#cgo noescape sketch_bloom_add_hash_batch
#cgo nocallback sketch_bloom_add_hash_batch
#cgo noescape sketch_bloom_contains_hash_batch
#cgo nocallback sketch_bloom_contains_hash_batch
#cgo noescape sketch_counting_add_hash_batch
#cgo nocallback sketch_counting_add_hash_batch
#cgo noescape sketch_counting_contains_hash_batch
#cgo nocallback sketch_counting_contains_hash_batch
#cgo noescape sketch_counting_remove_hash_batch
#cgo nocallback sketch_counting_remove_hash_batch
#cgo noescape sketch_cuckoo_add_hash_batch
#cgo nocallback sketch_cuckoo_add_hash_batch
#cgo noescape sketch_cuckoo_contains_hash_batch
#cgo nocallback sketch_cuckoo_contains_hash_batch
#cgo noescape sketch_cuckoo_remove_hash_batch
#cgo nocallback sketch_cuckoo_remove_hash_batch
#cgo noescape sketch_fuse_contains_hash_batch
#cgo nocallback sketch_fuse_contains_hash_batch
#cgo noescape sketch_hll_add_hash_batch
#cgo nocallback sketch_hll_add_hash_batch
#cgo noescape sketch_ull_add_hash_batch
#cgo nocallback sketch_ull_add_hash_batch
#cgo noescape sketch_ell_add_hash_batch
#cgo nocallback sketch_ell_add_hash_batch
#cgo noescape sketch_minhash_add_hash_batch
#cgo nocallback sketch_minhash_add_hash_batch
#cgo noescape sketch_countmin_add_hash_batch
#cgo nocallback sketch_countmin_add_hash_batch
#cgo noescape sketch_countmin_estimate_hash_batch
#cgo nocallback sketch_countmin_estimate_hash_batch
#cgo noescape sk_hash_xxh64
#cgo nocallback sk_hash_xxh64
#cgo noescape sk_hash
#cgo nocallback sk_hash
#cgo noescape sketch_hash_u64
#cgo nocallback sketch_hash_u64
#cgo noescape sk_parquet_hash_bytes
#cgo nocallback sk_parquet_hash_bytes
#cgo noescape sk_counting_add
#cgo nocallback sk_counting_add
#cgo noescape sk_counting_add_u64
#cgo nocallback sk_counting_add_u64
#cgo noescape sk_counting_contains
#cgo nocallback sk_counting_contains
#cgo noescape sk_counting_contains_u64
#cgo nocallback sk_counting_contains_u64
#cgo noescape sk_counting_remove
#cgo nocallback sk_counting_remove
#cgo noescape sk_counting_remove_u64
#cgo nocallback sk_counting_remove_u64
#cgo noescape sk_cuckoo_add
#cgo nocallback sk_cuckoo_add
#cgo noescape sk_cuckoo_add_u64
#cgo nocallback sk_cuckoo_add_u64
#cgo noescape sk_cuckoo_contains
#cgo nocallback sk_cuckoo_contains
#cgo noescape sk_cuckoo_contains_u64
#cgo nocallback sk_cuckoo_contains_u64
#cgo noescape sk_cuckoo_remove
#cgo nocallback sk_cuckoo_remove
#cgo noescape sk_cuckoo_remove_u64
#cgo nocallback sk_cuckoo_remove_u64
#cgo noescape sk_hll_add
#cgo nocallback sk_hll_add
#cgo noescape sk_hll_add_u64
#cgo nocallback sk_hll_add_u64
#cgo noescape sk_ull_add
#cgo nocallback sk_ull_add
#cgo noescape sk_ull_add_u64
#cgo nocallback sk_ull_add_u64
#cgo noescape sk_ell_add
#cgo nocallback sk_ell_add
#cgo noescape sk_ell_add_u64
#cgo nocallback sk_ell_add_u64
#cgo noescape sk_fuse_contains
#cgo nocallback sk_fuse_contains
#cgo noescape sk_fuse_contains_u64
#cgo nocallback sk_fuse_contains_u64
#cgo noescape sk_minhash_add
#cgo nocallback sk_minhash_add
#cgo noescape sk_minhash_add_u64
#cgo nocallback sk_minhash_add_u64
#cgo noescape sk_countmin_add
#cgo nocallback sk_countmin_add
#cgo noescape sk_countmin_add_u64
#cgo nocallback sk_countmin_add_u64
#cgo noescape sk_countmin_estimate
#cgo nocallback sk_countmin_estimate
#cgo noescape sk_countmin_estimate_u64
#cgo nocallback sk_countmin_estimate_u64
#cgo noescape sk_topk_add
#cgo nocallback sk_topk_add
#cgo noescape sk_topk_add_u64
#cgo nocallback sk_topk_add_u64
#cgo noescape sk_cuckoo_count
#cgo nocallback sk_cuckoo_count
#cgo noescape sk_topk_estimate
#cgo nocallback sk_topk_estimate
#cgo noescape sk_bloom_add_concurrent
#cgo nocallback sk_bloom_add_concurrent
#cgo noescape sk_bloom_add_concurrent_u64
#cgo nocallback sk_bloom_add_concurrent_u64
#cgo noescape sk_bloom_contains_concurrent
#cgo nocallback sk_bloom_contains_concurrent
#cgo noescape sk_bloom_contains_concurrent_u64
#cgo nocallback sk_bloom_contains_concurrent_u64
#cgo noescape sk_sbbf_add_concurrent
#cgo nocallback sk_sbbf_add_concurrent
#cgo noescape sk_sbbf_add_concurrent_u64
#cgo nocallback sk_sbbf_add_concurrent_u64
#cgo noescape sk_sbbf_contains_concurrent
#cgo nocallback sk_sbbf_contains_concurrent
#cgo noescape sk_sbbf_contains_concurrent_u64
#cgo nocallback sk_sbbf_contains_concurrent_u64
#cgo noescape sk_hll_add_concurrent
#cgo nocallback sk_hll_add_concurrent
#cgo noescape sk_hll_add_concurrent_u64
#cgo nocallback sk_hll_add_concurrent_u64
#cgo noescape sk_ull_add_concurrent
#cgo nocallback sk_ull_add_concurrent
#cgo noescape sk_ull_add_concurrent_u64
#cgo nocallback sk_ull_add_concurrent_u64

#cgo noescape sketch_version
#cgo nocallback sketch_version
#cgo noescape sketch_version_string
#cgo nocallback sketch_version_string
#cgo noescape sketch_status_str
#cgo nocallback sketch_status_str
#cgo noescape sk_image_inspect
#cgo nocallback sk_image_inspect
#cgo noescape sk_image_inspect_header
#cgo nocallback sk_image_inspect_header

#cgo noescape sketch_bloom_plan
#cgo nocallback sketch_bloom_plan
#cgo noescape sketch_bloom_plan_bits
#cgo nocallback sketch_bloom_plan_bits
#cgo noescape sketch_bloom_size
#cgo nocallback sketch_bloom_size
#cgo noescape sketch_bloom_init
#cgo nocallback sketch_bloom_init
#cgo noescape sketch_bloom_add_packed
#cgo nocallback sketch_bloom_add_packed
#cgo noescape sketch_bloom_add_u64_batch
#cgo nocallback sketch_bloom_add_u64_batch
#cgo noescape sketch_bloom_contains_packed
#cgo nocallback sketch_bloom_contains_packed
#cgo noescape sketch_bloom_contains_u64_batch
#cgo nocallback sketch_bloom_contains_u64_batch
#cgo noescape sketch_bloom_union
#cgo nocallback sketch_bloom_union
#cgo noescape sketch_bloom_intersect
#cgo nocallback sketch_bloom_intersect
#cgo noescape sketch_bloom_get_stats
#cgo nocallback sketch_bloom_get_stats
#cgo noescape sketch_bloom_capacity
#cgo nocallback sketch_bloom_capacity
#cgo noescape sketch_bloom_capacity_concurrent
#cgo nocallback sketch_bloom_capacity_concurrent
#cgo noescape sketch_bloom_clear
#cgo nocallback sketch_bloom_clear
#cgo noescape sk_bloom_export
#cgo nocallback sk_bloom_export
#cgo noescape sk_bloom_import
#cgo nocallback sk_bloom_import
#cgo noescape sk_bloom_import_size
#cgo nocallback sk_bloom_import_size
#cgo noescape sk_bloom_verify
#cgo nocallback sk_bloom_verify
#cgo noescape sketch_bloom_token
#cgo nocallback sketch_bloom_token

#cgo noescape sketch_sbbf_plan
#cgo nocallback sketch_sbbf_plan
#cgo noescape sketch_sbbf_plan_parquet
#cgo nocallback sketch_sbbf_plan_parquet
#cgo noescape sketch_sbbf_plan_blocks
#cgo nocallback sketch_sbbf_plan_blocks
#cgo noescape sketch_sbbf_size
#cgo nocallback sketch_sbbf_size
#cgo nocallback sketch_sbbf_bitset
#cgo noescape sketch_sbbf_init
#cgo nocallback sketch_sbbf_init
#cgo noescape sketch_sbbf_add_packed
#cgo nocallback sketch_sbbf_add_packed
#cgo noescape sketch_sbbf_add_u64_batch
#cgo nocallback sketch_sbbf_add_u64_batch
#cgo noescape sketch_sbbf_contains_packed
#cgo nocallback sketch_sbbf_contains_packed
#cgo noescape sketch_sbbf_contains_u64_batch
#cgo nocallback sketch_sbbf_contains_u64_batch
#cgo noescape sketch_sbbf_add_hash_batch
#cgo nocallback sketch_sbbf_add_hash_batch
#cgo noescape sketch_sbbf_contains_hash_batch
#cgo nocallback sketch_sbbf_contains_hash_batch
#cgo noescape sketch_sbbf_union
#cgo nocallback sketch_sbbf_union
#cgo noescape sketch_sbbf_intersect
#cgo nocallback sketch_sbbf_intersect
#cgo noescape sketch_sbbf_get_stats
#cgo nocallback sketch_sbbf_get_stats
#cgo noescape sketch_sbbf_capacity
#cgo nocallback sketch_sbbf_capacity
#cgo noescape sketch_sbbf_capacity_concurrent
#cgo nocallback sketch_sbbf_capacity_concurrent
#cgo noescape sketch_sbbf_clear
#cgo nocallback sketch_sbbf_clear
#cgo noescape sk_sbbf_export
#cgo nocallback sk_sbbf_export
#cgo noescape sk_sbbf_import
#cgo nocallback sk_sbbf_import
#cgo noescape sk_sbbf_import_size
#cgo nocallback sk_sbbf_import_size
#cgo noescape sk_sbbf_verify
#cgo nocallback sk_sbbf_verify
#cgo noescape sketch_sbbf_token
#cgo nocallback sketch_sbbf_token
#cgo noescape sketch_sbbf_plan_parquet_sizing
#cgo nocallback sketch_sbbf_plan_parquet_sizing
#cgo noescape sketch_sbbf_plan_parquet_bitset
#cgo nocallback sketch_sbbf_plan_parquet_bitset
#cgo noescape sk_sbbf_load_parquet_bitset
#cgo nocallback sk_sbbf_load_parquet_bitset
#cgo noescape sketch_sbbf_fold
#cgo nocallback sketch_sbbf_fold
#cgo noescape sketch_sbbf_fold_to_target_fpp
#cgo nocallback sketch_sbbf_fold_to_target_fpp
#cgo noescape sketch_parquet_hash_i32
#cgo nocallback sketch_parquet_hash_i32
#cgo noescape sketch_parquet_hash_i64
#cgo nocallback sketch_parquet_hash_i64
#cgo noescape sketch_parquet_hash_float
#cgo nocallback sketch_parquet_hash_float
#cgo noescape sketch_parquet_hash_double
#cgo nocallback sketch_parquet_hash_double

#cgo noescape sketch_counting_size
#cgo nocallback sketch_counting_size
#cgo noescape sketch_counting_init
#cgo nocallback sketch_counting_init
#cgo noescape sketch_counting_add_packed
#cgo nocallback sketch_counting_add_packed
#cgo noescape sketch_counting_add_u64_batch
#cgo nocallback sketch_counting_add_u64_batch
#cgo noescape sketch_counting_contains_packed
#cgo nocallback sketch_counting_contains_packed
#cgo noescape sketch_counting_contains_u64_batch
#cgo nocallback sketch_counting_contains_u64_batch
#cgo noescape sketch_counting_remove_packed
#cgo nocallback sketch_counting_remove_packed
#cgo noescape sketch_counting_remove_u64_batch
#cgo nocallback sketch_counting_remove_u64_batch
#cgo noescape sketch_counting_merge
#cgo nocallback sketch_counting_merge
#cgo noescape sketch_counting_get_stats
#cgo nocallback sketch_counting_get_stats
#cgo noescape sketch_counting_capacity
#cgo nocallback sketch_counting_capacity
#cgo noescape sketch_counting_clear
#cgo nocallback sketch_counting_clear
#cgo noescape sk_counting_export
#cgo nocallback sk_counting_export
#cgo noescape sk_counting_import
#cgo nocallback sk_counting_import
#cgo noescape sk_counting_import_size
#cgo nocallback sk_counting_import_size
#cgo noescape sk_counting_verify
#cgo nocallback sk_counting_verify

#cgo noescape sketch_cuckoo_plan
#cgo nocallback sketch_cuckoo_plan
#cgo noescape sketch_cuckoo_plan_buckets
#cgo nocallback sketch_cuckoo_plan_buckets
#cgo noescape sketch_cuckoo_size
#cgo nocallback sketch_cuckoo_size
#cgo noescape sketch_cuckoo_init
#cgo nocallback sketch_cuckoo_init
#cgo noescape sketch_cuckoo_add_packed
#cgo nocallback sketch_cuckoo_add_packed
#cgo noescape sketch_cuckoo_add_u64_batch
#cgo nocallback sketch_cuckoo_add_u64_batch
#cgo noescape sketch_cuckoo_contains_packed
#cgo nocallback sketch_cuckoo_contains_packed
#cgo noescape sketch_cuckoo_contains_u64_batch
#cgo nocallback sketch_cuckoo_contains_u64_batch
#cgo noescape sketch_cuckoo_remove_packed
#cgo nocallback sketch_cuckoo_remove_packed
#cgo noescape sketch_cuckoo_remove_u64_batch
#cgo nocallback sketch_cuckoo_remove_u64_batch
#cgo noescape sketch_cuckoo_merge
#cgo nocallback sketch_cuckoo_merge
#cgo noescape sketch_cuckoo_get_stats
#cgo nocallback sketch_cuckoo_get_stats
#cgo noescape sketch_cuckoo_capacity
#cgo nocallback sketch_cuckoo_capacity
#cgo noescape sketch_cuckoo_clear
#cgo nocallback sketch_cuckoo_clear
#cgo noescape sk_cuckoo_export
#cgo nocallback sk_cuckoo_export
#cgo noescape sk_cuckoo_import
#cgo nocallback sk_cuckoo_import
#cgo noescape sk_cuckoo_import_size
#cgo nocallback sk_cuckoo_import_size
#cgo noescape sk_cuckoo_verify
#cgo nocallback sk_cuckoo_verify

#cgo noescape sketch_hll_size
#cgo nocallback sketch_hll_size
#cgo noescape sketch_hll_init
#cgo nocallback sketch_hll_init
#cgo noescape sketch_hll_add_packed
#cgo nocallback sketch_hll_add_packed
#cgo noescape sketch_hll_add_u64_batch
#cgo nocallback sketch_hll_add_u64_batch
#cgo noescape sketch_hll_estimate
#cgo nocallback sketch_hll_estimate
#cgo noescape sketch_hll_register_estimate
#cgo nocallback sketch_hll_register_estimate
#cgo noescape sketch_hll_reset
#cgo nocallback sketch_hll_reset
#cgo noescape sketch_hll_merge
#cgo nocallback sketch_hll_merge
#cgo noescape sk_hll_import
#cgo nocallback sk_hll_import
#cgo noescape sk_hll_import_size
#cgo nocallback sk_hll_import_size
#cgo noescape sk_hll_verify
#cgo nocallback sk_hll_verify
#cgo noescape sketch_hll_exported_size
#cgo nocallback sketch_hll_exported_size
#cgo noescape sk_hll_export
#cgo nocallback sk_hll_export
#cgo noescape sketch_hll_downsize
#cgo nocallback sketch_hll_downsize
#cgo noescape sketch_hll_get_stats
#cgo nocallback sketch_hll_get_stats
#cgo noescape sketch_hll_token
#cgo nocallback sketch_hll_token

#cgo noescape sketch_ull_size
#cgo nocallback sketch_ull_size
#cgo noescape sketch_ull_init
#cgo nocallback sketch_ull_init
#cgo noescape sketch_ull_add_packed
#cgo nocallback sketch_ull_add_packed
#cgo noescape sketch_ull_add_u64_batch
#cgo nocallback sketch_ull_add_u64_batch
#cgo noescape sketch_ull_estimate
#cgo nocallback sketch_ull_estimate
#cgo noescape sketch_ull_register_estimate
#cgo nocallback sketch_ull_register_estimate
#cgo noescape sketch_ull_ml_estimate
#cgo nocallback sketch_ull_ml_estimate
#cgo noescape sketch_ull_reset
#cgo nocallback sketch_ull_reset
#cgo noescape sketch_ull_merge
#cgo nocallback sketch_ull_merge
#cgo noescape sk_ull_import
#cgo nocallback sk_ull_import
#cgo noescape sk_ull_import_size
#cgo nocallback sk_ull_import_size
#cgo noescape sk_ull_verify
#cgo nocallback sk_ull_verify
#cgo noescape sk_ull_export
#cgo nocallback sk_ull_export
#cgo noescape sketch_ull_to_hll
#cgo nocallback sketch_ull_to_hll
#cgo noescape sketch_ull_get_stats
#cgo nocallback sketch_ull_get_stats

#cgo noescape sketch_countmin_plan
#cgo nocallback sketch_countmin_plan
#cgo noescape sketch_countmin_plan_size
#cgo nocallback sketch_countmin_plan_size
#cgo noescape sketch_countmin_size
#cgo nocallback sketch_countmin_size
#cgo noescape sketch_countmin_init
#cgo nocallback sketch_countmin_init
#cgo noescape sketch_countmin_add_packed
#cgo nocallback sketch_countmin_add_packed
#cgo noescape sketch_countmin_add_u64_batch
#cgo nocallback sketch_countmin_add_u64_batch
#cgo noescape sketch_countmin_estimate_packed
#cgo nocallback sketch_countmin_estimate_packed
#cgo noescape sketch_countmin_estimate_u64_batch
#cgo nocallback sketch_countmin_estimate_u64_batch
#cgo noescape sketch_countmin_merge
#cgo nocallback sketch_countmin_merge
#cgo noescape sketch_countmin_clear
#cgo nocallback sketch_countmin_clear
#cgo noescape sk_countmin_export
#cgo nocallback sk_countmin_export
#cgo noescape sk_countmin_import
#cgo nocallback sk_countmin_import
#cgo noescape sk_countmin_import_size
#cgo nocallback sk_countmin_import_size
#cgo noescape sk_countmin_verify
#cgo nocallback sk_countmin_verify
#cgo noescape sketch_countmin_get_stats
#cgo nocallback sketch_countmin_get_stats

#cgo noescape sketch_topk_size
#cgo nocallback sketch_topk_size
#cgo noescape sketch_topk_init
#cgo nocallback sketch_topk_init
#cgo noescape sketch_topk_add_packed
#cgo nocallback sketch_topk_add_packed
#cgo noescape sketch_topk_add_u64_batch
#cgo nocallback sketch_topk_add_u64_batch
#cgo nocallback sketch_topk_list
#cgo noescape sketch_topk_merge
#cgo nocallback sketch_topk_merge
#cgo noescape sketch_topk_clear
#cgo nocallback sketch_topk_clear
#cgo noescape sk_topk_export
#cgo nocallback sk_topk_export
#cgo noescape sk_topk_import
#cgo nocallback sk_topk_import
#cgo noescape sk_topk_import_size
#cgo nocallback sk_topk_import_size
#cgo noescape sk_topk_verify
#cgo nocallback sk_topk_verify
#cgo noescape sketch_topk_get_stats
#cgo nocallback sketch_topk_get_stats

#cgo noescape sketch_minhash_size
#cgo nocallback sketch_minhash_size
#cgo noescape sketch_minhash_init
#cgo nocallback sketch_minhash_init
#cgo noescape sketch_minhash_add_packed
#cgo nocallback sketch_minhash_add_packed
#cgo noescape sketch_minhash_add_u64_batch
#cgo nocallback sketch_minhash_add_u64_batch
#cgo noescape sketch_minhash_jaccard
#cgo nocallback sketch_minhash_jaccard
#cgo noescape sketch_minhash_signature
#cgo nocallback sketch_minhash_signature
#cgo noescape sketch_minhash_merge
#cgo nocallback sketch_minhash_merge
#cgo noescape sketch_minhash_clear
#cgo nocallback sketch_minhash_clear
#cgo noescape sk_minhash_export
#cgo nocallback sk_minhash_export
#cgo noescape sk_minhash_import
#cgo nocallback sk_minhash_import
#cgo noescape sk_minhash_import_size
#cgo nocallback sk_minhash_import_size
#cgo noescape sk_minhash_verify
#cgo nocallback sk_minhash_verify
#cgo noescape sketch_minhash_get_stats
#cgo nocallback sketch_minhash_get_stats

#cgo noescape sketch_ell_plan
#cgo nocallback sketch_ell_plan
#cgo noescape sketch_ell_size
#cgo nocallback sketch_ell_size
#cgo noescape sketch_ell_init
#cgo nocallback sketch_ell_init
#cgo noescape sketch_ell_add_packed
#cgo nocallback sketch_ell_add_packed
#cgo noescape sketch_ell_add_u64_batch
#cgo nocallback sketch_ell_add_u64_batch
#cgo noescape sketch_ell_estimate
#cgo nocallback sketch_ell_estimate
#cgo noescape sketch_ell_ml_estimate
#cgo nocallback sketch_ell_ml_estimate
#cgo noescape sketch_ell_martingale_estimate
#cgo nocallback sketch_ell_martingale_estimate
#cgo noescape sketch_ell_reset
#cgo nocallback sketch_ell_reset
#cgo noescape sketch_ell_merge
#cgo nocallback sketch_ell_merge
#cgo noescape sketch_ell_downsize
#cgo nocallback sketch_ell_downsize
#cgo noescape sketch_ell_get_stats
#cgo nocallback sketch_ell_get_stats
#cgo noescape sketch_ell_exported_size
#cgo nocallback sketch_ell_exported_size
#cgo noescape sk_ell_export
#cgo nocallback sk_ell_export
#cgo noescape sk_ell_import_size
#cgo nocallback sk_ell_import_size
#cgo noescape sk_ell_import
#cgo nocallback sk_ell_import
#cgo noescape sk_ell_verify
#cgo nocallback sk_ell_verify

#cgo noescape sketch_fuse_plan
#cgo nocallback sketch_fuse_plan
#cgo noescape sketch_fuse_plan_bits
#cgo nocallback sketch_fuse_plan_bits
#cgo noescape sketch_fuse_size
#cgo nocallback sketch_fuse_size
#cgo noescape sketch_fuse_scratch_size
#cgo nocallback sketch_fuse_scratch_size
#cgo noescape sketch_fuse_build_packed
#cgo nocallback sketch_fuse_build_packed
#cgo noescape sketch_fuse_build_u64_batch
#cgo nocallback sketch_fuse_build_u64_batch
#cgo noescape sketch_fuse_contains_packed
#cgo nocallback sketch_fuse_contains_packed
#cgo noescape sketch_fuse_contains_u64_batch
#cgo nocallback sketch_fuse_contains_u64_batch
#cgo noescape sketch_fuse_get_stats
#cgo nocallback sketch_fuse_get_stats
#cgo noescape sk_fuse_export
#cgo nocallback sk_fuse_export
#cgo noescape sk_fuse_import_size
#cgo nocallback sk_fuse_import_size
#cgo noescape sk_fuse_import
#cgo nocallback sk_fuse_import
#cgo noescape sk_fuse_verify
#cgo nocallback sk_fuse_verify

#cgo noescape sketch_bloom_add_concurrent_packed
#cgo nocallback sketch_bloom_add_concurrent_packed
#cgo noescape sketch_bloom_add_concurrent_u64_batch
#cgo nocallback sketch_bloom_add_concurrent_u64_batch
#cgo noescape sketch_bloom_contains_concurrent_packed
#cgo nocallback sketch_bloom_contains_concurrent_packed
#cgo noescape sketch_bloom_contains_concurrent_u64_batch
#cgo nocallback sketch_bloom_contains_concurrent_u64_batch
#cgo noescape sketch_sbbf_add_concurrent_packed
#cgo nocallback sketch_sbbf_add_concurrent_packed
#cgo noescape sketch_sbbf_add_concurrent_u64_batch
#cgo nocallback sketch_sbbf_add_concurrent_u64_batch
#cgo noescape sketch_sbbf_contains_concurrent_packed
#cgo nocallback sketch_sbbf_contains_concurrent_packed
#cgo noescape sketch_sbbf_contains_concurrent_u64_batch
#cgo nocallback sketch_sbbf_contains_concurrent_u64_batch
#cgo noescape sketch_hll_add_concurrent_packed
#cgo nocallback sketch_hll_add_concurrent_packed
#cgo noescape sketch_hll_add_concurrent_u64_batch
#cgo nocallback sketch_hll_add_concurrent_u64_batch
#cgo noescape sketch_hll_estimate_concurrent
#cgo nocallback sketch_hll_estimate_concurrent
#cgo noescape sketch_hll_densify
#cgo nocallback sketch_hll_densify
#cgo noescape sketch_ull_add_concurrent_packed
#cgo nocallback sketch_ull_add_concurrent_packed
#cgo noescape sketch_ull_add_concurrent_u64_batch
#cgo nocallback sketch_ull_add_concurrent_u64_batch
#cgo noescape sketch_ull_estimate_concurrent
#cgo nocallback sketch_ull_estimate_concurrent
*/
import "C"

import "unsafe"

// ---- conversions -----------------------------------------------------------

// img returns the image pointer and length for a C call (NULL, 0 for an
// empty image: the zero value of a sketch type).
func img(b []byte) (unsafe.Pointer, C.size_t) {
	return unsafe.Pointer(unsafe.SliceData(b)), C.size_t(len(b))
}

// bp types an image or key address as bytes for the single-key shims.
func bp(p unsafe.Pointer) *C.uint8_t { return (*C.uint8_t)(p) }

// imageToken and sketch_token have one layout (8 words, no pointers): each
// line fails to compile when the header's size differs in one direction.
const (
	_ = uint(unsafe.Sizeof(C.sketch_token{}) - unsafe.Sizeof(imageToken{}))
	_ = uint(unsafe.Sizeof(imageToken{}) - unsafe.Sizeof(C.sketch_token{}))
	_ = uint(C.SKETCH_TOKEN_WORDS - len(imageToken{}))
	_ = uint(len(imageToken{}) - C.SKETCH_TOKEN_WORDS)
)

// The format constants the stream reader checks in a common header before
// the rest of the image has arrived (SKETCH_FORMAT_MAJOR,
// SKETCH_COMMON_HEADER_BYTES), and the hash id it gives the header's copy
// whose hash id the import judges instead (SKETCH_HASH_XXH3).
const (
	formatMajor     = C.SKETCH_FORMAT_MAJOR
	commonHeaderLen = C.SKETCH_COMMON_HEADER_BYTES
	hashXXH3        = C.SKETCH_HASH_XXH3
)

// tp passes a token to the _with_token shims (read only by C).
func tp(t *imageToken) *C.sketch_token { return (*C.sketch_token)(unsafe.Pointer(t)) }

func u64s(v []uint64) *C.uint64_t {
	if len(v) == 0 {
		return nil
	}
	return (*C.uint64_t)(unsafe.Pointer(&v[0]))
}

func bools(v []bool) *C.bool {
	if len(v) == 0 {
		return nil
	}
	return (*C.bool)(unsafe.Pointer(&v[0]))
}

func offsets(v []uint32) *C.uint32_t {
	return (*C.uint32_t)(unsafe.Pointer(&v[0])) // never empty: count + 1 entries
}

// ---- library -----------------------------------------------------------------

func statusText(s int32) string { return C.GoString(C.sketch_status_str(C.int32_t(s))) }

func cVersion() uint32 { return uint32(C.sketch_version()) }

func cVersionString() string { return C.GoString(C.sketch_version_string()) }

func cInspect(b []byte) (ImageInfo, int32) {
	var o C.struct_sketch_image_info
	s := C.sk_image_inspect(bp(bytesPtr(b)), C.size_t(len(b)), &o)
	return imageInfoOf(&o), int32(s)
}

// cInspectHeader checks the common header in the first 48 bytes of b alone
// (sketch_image_inspect_header): the image length it records need not fit b.
func cInspectHeader(b []byte) (ImageInfo, int32) {
	var o C.struct_sketch_image_info
	s := C.sk_image_inspect_header(bp(bytesPtr(b)), C.size_t(len(b)), &o)
	return imageInfoOf(&o), int32(s)
}

func imageInfoOf(o *C.struct_sketch_image_info) ImageInfo {
	return ImageInfo{
		Family: Family(o.family), Hash: uint16(o.hash),
		FormatMajor: uint8(o.format_major), FormatMinor: uint8(o.format_minor),
		Flags: uint32(o.flags), HeaderBytes: uint32(o.header_bytes),
		Seed: uint64(o.seed), ImageBytes: uint64(o.image_bytes),
	}
}

// ---- every family: export, import, verify, clear, merge ----------------------

func cExport(f Family, b, out []byte) (int, int32) {
	ip, n := img(b)
	p := bp(ip)
	o, on := bp(bytesPtr(out)), C.size_t(len(out))
	var w C.size_t
	var s C.sketch_status
	switch f {
	case FamilyBloom:
		s = C.sk_bloom_export(p, n, o, on, &w)
	case FamilySplitBlock:
		s = C.sk_sbbf_export(p, n, o, on, &w)
	case FamilyCountingBloom:
		s = C.sk_counting_export(p, n, o, on, &w)
	case FamilyCuckoo:
		s = C.sk_cuckoo_export(p, n, o, on, &w)
	case FamilyHLL:
		s = C.sk_hll_export(p, n, o, on, &w)
	case FamilyULL:
		s = C.sk_ull_export(p, n, o, on, &w)
	case FamilyCountMin:
		s = C.sk_countmin_export(p, n, o, on, &w)
	case FamilyTopK:
		s = C.sk_topk_export(p, n, o, on, &w)
	case FamilyMinHash:
		s = C.sk_minhash_export(p, n, o, on, &w)
	case FamilyBinaryFuse:
		s = C.sk_fuse_export(p, n, o, on, &w)
	case FamilyELL:
		s = C.sk_ell_export(p, n, o, on, &w)
	default:
		return 0, int32(StatusWrongFamily)
	}
	return int(w), int32(s)
}

func cImport(f Family, src, dst []byte) int32 {
	sp, sn := bp(bytesPtr(src)), C.size_t(len(src))
	p, dn := img(dst)
	dp := bp(p)
	switch f {
	case FamilyBloom:
		return int32(C.sk_bloom_import(sp, sn, dp, dn))
	case FamilySplitBlock:
		return int32(C.sk_sbbf_import(sp, sn, dp, dn))
	case FamilyCountingBloom:
		return int32(C.sk_counting_import(sp, sn, dp, dn))
	case FamilyCuckoo:
		return int32(C.sk_cuckoo_import(sp, sn, dp, dn))
	case FamilyHLL:
		return int32(C.sk_hll_import(sp, sn, dp, dn))
	case FamilyULL:
		return int32(C.sk_ull_import(sp, sn, dp, dn))
	case FamilyCountMin:
		return int32(C.sk_countmin_import(sp, sn, dp, dn))
	case FamilyTopK:
		return int32(C.sk_topk_import(sp, sn, dp, dn))
	case FamilyMinHash:
		return int32(C.sk_minhash_import(sp, sn, dp, dn))
	case FamilyBinaryFuse:
		return int32(C.sk_fuse_import(sp, sn, dp, dn))
	case FamilyELL:
		return int32(C.sk_ell_import(sp, sn, dp, dn))
	}
	return int32(StatusWrongFamily)
}

// cImportSize returns the live bytes an import of the exported image in src
// needs (sketch_<family>_import_size): the image length, except for a
// compact HLL export, which imports into the full image of its precision.
func cImportSize(f Family, src []byte) (int, int32) {
	sp, sn := bp(bytesPtr(src)), C.size_t(len(src))
	var o C.size_t
	var s C.sketch_status
	switch f {
	case FamilyBloom:
		s = C.sk_bloom_import_size(sp, sn, &o)
	case FamilySplitBlock:
		s = C.sk_sbbf_import_size(sp, sn, &o)
	case FamilyCountingBloom:
		s = C.sk_counting_import_size(sp, sn, &o)
	case FamilyCuckoo:
		s = C.sk_cuckoo_import_size(sp, sn, &o)
	case FamilyHLL:
		s = C.sk_hll_import_size(sp, sn, &o)
	case FamilyULL:
		s = C.sk_ull_import_size(sp, sn, &o)
	case FamilyCountMin:
		s = C.sk_countmin_import_size(sp, sn, &o)
	case FamilyTopK:
		s = C.sk_topk_import_size(sp, sn, &o)
	case FamilyMinHash:
		s = C.sk_minhash_import_size(sp, sn, &o)
	case FamilyBinaryFuse:
		s = C.sk_fuse_import_size(sp, sn, &o)
	case FamilyELL:
		s = C.sk_ell_import_size(sp, sn, &o)
	default:
		return 0, int32(StatusWrongFamily)
	}
	return int(o), int32(s)
}

func cVerify(f Family, b []byte) int32 {
	p, n := bp(bytesPtr(b)), C.size_t(len(b))
	switch f {
	case FamilyBloom:
		return int32(C.sk_bloom_verify(p, n))
	case FamilySplitBlock:
		return int32(C.sk_sbbf_verify(p, n))
	case FamilyCountingBloom:
		return int32(C.sk_counting_verify(p, n))
	case FamilyCuckoo:
		return int32(C.sk_cuckoo_verify(p, n))
	case FamilyHLL:
		return int32(C.sk_hll_verify(p, n))
	case FamilyULL:
		return int32(C.sk_ull_verify(p, n))
	case FamilyCountMin:
		return int32(C.sk_countmin_verify(p, n))
	case FamilyTopK:
		return int32(C.sk_topk_verify(p, n))
	case FamilyMinHash:
		return int32(C.sk_minhash_verify(p, n))
	case FamilyBinaryFuse:
		return int32(C.sk_fuse_verify(p, n))
	case FamilyELL:
		return int32(C.sk_ell_verify(p, n))
	}
	return int32(StatusWrongFamily)
}

func cClear(f Family, b []byte) int32 {
	p, n := img(b)
	switch f {
	case FamilyBloom:
		return int32(C.sketch_bloom_clear(p, n))
	case FamilySplitBlock:
		return int32(C.sketch_sbbf_clear(p, n))
	case FamilyCountingBloom:
		return int32(C.sketch_counting_clear(p, n))
	case FamilyCuckoo:
		return int32(C.sketch_cuckoo_clear(p, n))
	case FamilyHLL:
		return int32(C.sketch_hll_reset(p, n))
	case FamilyULL:
		return int32(C.sketch_ull_reset(p, n))
	case FamilyCountMin:
		return int32(C.sketch_countmin_clear(p, n))
	case FamilyTopK:
		return int32(C.sketch_topk_clear(p, n))
	case FamilyMinHash:
		return int32(C.sketch_minhash_clear(p, n))
	case FamilyELL:
		return int32(C.sketch_ell_reset(p, n))
	}
	return int32(StatusWrongFamily)
}

// cMerge merges src into dst (union for the Bloom filters). The cuckoo
// filter needs scratch memory: see cCuckooMerge.
func cMerge(f Family, dst, src []byte) int32 {
	dp, dn := img(dst)
	sp, sn := img(src)
	switch f {
	case FamilyBloom:
		return int32(C.sketch_bloom_union(dp, dn, sp, sn))
	case FamilySplitBlock:
		return int32(C.sketch_sbbf_union(dp, dn, sp, sn))
	case FamilyCountingBloom:
		return int32(C.sketch_counting_merge(dp, dn, sp, sn))
	case FamilyHLL:
		return int32(C.sketch_hll_merge(dp, dn, sp, sn))
	case FamilyULL:
		return int32(C.sketch_ull_merge(dp, dn, sp, sn))
	case FamilyCountMin:
		return int32(C.sketch_countmin_merge(dp, dn, sp, sn))
	case FamilyTopK:
		return int32(C.sketch_topk_merge(dp, dn, sp, sn))
	case FamilyMinHash:
		return int32(C.sketch_minhash_merge(dp, dn, sp, sn))
	case FamilyELL:
		return int32(C.sketch_ell_merge(dp, dn, sp, sn))
	}
	return int32(StatusWrongFamily)
}

func cIntersect(f Family, dst, src []byte) int32 {
	dp, dn := img(dst)
	sp, sn := img(src)
	if f == FamilySplitBlock {
		return int32(C.sketch_sbbf_intersect(dp, dn, sp, sn))
	}
	return int32(C.sketch_bloom_intersect(dp, dn, sp, sn))
}

// cToken validates the live image b of a Bloom, split-block or HLL sketch
// and returns its token (sketch_<family>_token); the zero token with the
// status on error (StatusWrongFamily for the families without tokens).
func cToken(f Family, b []byte) (imageToken, int32) {
	p, n := img(b)
	var o C.sketch_token
	var s C.sketch_status
	switch f {
	case FamilyBloom:
		s = C.sketch_bloom_token(p, n, &o)
	case FamilySplitBlock:
		s = C.sketch_sbbf_token(p, n, &o)
	case FamilyHLL:
		s = C.sketch_hll_token(p, n, &o)
	default:
		return imageToken{}, int32(StatusWrongFamily)
	}
	if s != 0 {
		return imageToken{}, int32(s)
	}
	var t imageToken
	for i := range t {
		t[i] = uint64(o.words[i])
	}
	return t, 0
}

// ---- membership filters: batches (Bloom, split-block, counting, cuckoo; fuse queries) -----

// cFilterAddPacked adds count = len(offs)-1 packed keys; out (nil, or count
// slots) receives was-new flags (added flags for the cuckoo filter, where
// it is required).
func cFilterAddPacked(f Family, b, data []byte, offs []uint32, out []bool) int32 {
	p, n := img(b)
	d, dn, o, cnt := bytesPtr(data), C.size_t(len(data)), offsets(offs), C.size_t(len(offs)-1)
	switch f {
	case FamilyBloom:
		return int32(C.sketch_bloom_add_packed(p, n, d, dn, o, cnt, bools(out)))
	case FamilySplitBlock:
		return int32(C.sketch_sbbf_add_packed(p, n, d, dn, o, cnt, bools(out)))
	case FamilyCountingBloom:
		return int32(C.sketch_counting_add_packed(p, n, d, dn, o, cnt, bools(out)))
	case FamilyCuckoo:
		return int32(C.sketch_cuckoo_add_packed(p, n, d, dn, o, cnt, bools(out)))
	}
	return int32(StatusWrongFamily)
}

func cFilterAddU64s(f Family, b []byte, keys []uint64, out []bool) int32 {
	p, n := img(b)
	k, cnt := u64s(keys), C.size_t(len(keys))
	switch f {
	case FamilyBloom:
		return int32(C.sketch_bloom_add_u64_batch(p, n, k, cnt, bools(out)))
	case FamilySplitBlock:
		return int32(C.sketch_sbbf_add_u64_batch(p, n, k, cnt, bools(out)))
	case FamilyCountingBloom:
		return int32(C.sketch_counting_add_u64_batch(p, n, k, cnt, bools(out)))
	case FamilyCuckoo:
		return int32(C.sketch_cuckoo_add_u64_batch(p, n, k, cnt, bools(out)))
	}
	return int32(StatusWrongFamily)
}

func cFilterContainsPacked(f Family, b, data []byte, offs []uint32, out []bool) int32 {
	p, n := img(b)
	d, dn, o, cnt := bytesPtr(data), C.size_t(len(data)), offsets(offs), C.size_t(len(offs)-1)
	switch f {
	case FamilyBloom:
		return int32(C.sketch_bloom_contains_packed(p, n, d, dn, o, cnt, bools(out)))
	case FamilySplitBlock:
		return int32(C.sketch_sbbf_contains_packed(p, n, d, dn, o, cnt, bools(out)))
	case FamilyCountingBloom:
		return int32(C.sketch_counting_contains_packed(p, n, d, dn, o, cnt, bools(out)))
	case FamilyCuckoo:
		return int32(C.sketch_cuckoo_contains_packed(p, n, d, dn, o, cnt, bools(out)))
	case FamilyBinaryFuse:
		return int32(C.sketch_fuse_contains_packed(p, n, d, dn, o, cnt, bools(out)))
	}
	return int32(StatusWrongFamily)
}

func cSplitBlockAddHashes(b []byte, hashes []uint64, out []bool) int32 {
	p, n := img(b)
	return int32(C.sketch_sbbf_add_hash_batch(p, n, u64s(hashes), C.size_t(len(hashes)), bools(out)))
}

func cSplitBlockContainsHashes(b []byte, hashes []uint64, out []bool) int32 {
	p, n := img(b)
	return int32(C.sketch_sbbf_contains_hash_batch(p, n, u64s(hashes), C.size_t(len(hashes)), bools(out)))
}

func cFilterContainsU64s(f Family, b []byte, keys []uint64, out []bool) int32 {
	p, n := img(b)
	k, cnt := u64s(keys), C.size_t(len(keys))
	switch f {
	case FamilyBloom:
		return int32(C.sketch_bloom_contains_u64_batch(p, n, k, cnt, bools(out)))
	case FamilySplitBlock:
		return int32(C.sketch_sbbf_contains_u64_batch(p, n, k, cnt, bools(out)))
	case FamilyCountingBloom:
		return int32(C.sketch_counting_contains_u64_batch(p, n, k, cnt, bools(out)))
	case FamilyCuckoo:
		return int32(C.sketch_cuckoo_contains_u64_batch(p, n, k, cnt, bools(out)))
	case FamilyBinaryFuse:
		return int32(C.sketch_fuse_contains_u64_batch(p, n, k, cnt, bools(out)))
	}
	return int32(StatusWrongFamily)
}

func cFilterCapacity(f Family, b []byte) (CapacityFlags, int32) {
	p, n := img(b)
	var o C.uint32_t
	var s C.sketch_status
	switch f {
	case FamilyBloom:
		s = C.sketch_bloom_capacity(p, n, &o)
	case FamilySplitBlock:
		s = C.sketch_sbbf_capacity(p, n, &o)
	case FamilyCountingBloom:
		s = C.sketch_counting_capacity(p, n, &o)
	case FamilyCuckoo:
		s = C.sketch_cuckoo_capacity(p, n, &o)
	default:
		return 0, int32(StatusWrongFamily)
	}
	return CapacityFlags(o), int32(s)
}

// cFilterCapacityConcurrent is cFilterCapacity read with atomic loads, safe
// while other goroutines add through the Concurrent methods (Bloom and
// split-block filters only).
func cFilterCapacityConcurrent(f Family, b []byte) (CapacityFlags, int32) {
	p, n := img(b)
	var o C.uint32_t
	var s C.sketch_status
	switch f {
	case FamilyBloom:
		s = C.sketch_bloom_capacity_concurrent(p, n, &o)
	case FamilySplitBlock:
		s = C.sketch_sbbf_capacity_concurrent(p, n, &o)
	default:
		return 0, int32(StatusWrongFamily)
	}
	return CapacityFlags(o), int32(s)
}

// ---- Bloom -------------------------------------------------------------------

func cBloomParams(p BloomParams) C.struct_sketch_bloom_params {
	return C.struct_sketch_bloom_params{
		bits: C.uint64_t(p.Bits), hashes: C.uint32_t(p.Hashes),
		planned_items: C.uint64_t(p.PlannedItems), planned_fpr: C.double(p.PlannedFPR),
	}
}

func goBloomParams(p C.struct_sketch_bloom_params) BloomParams {
	return BloomParams{Bits: uint64(p.bits), Hashes: uint32(p.hashes),
		PlannedItems: uint64(p.planned_items), PlannedFPR: float64(p.planned_fpr)}
}

func cBloomPlan(items uint64, fpr float64) (BloomParams, int32) {
	var o C.struct_sketch_bloom_params
	s := C.sketch_bloom_plan(C.uint64_t(items), C.double(fpr), &o)
	return goBloomParams(o), int32(s)
}

func cBloomPlanBits(bits uint64, hashes uint32) (BloomParams, int32) {
	var o C.struct_sketch_bloom_params
	s := C.sketch_bloom_plan_bits(C.uint64_t(bits), C.uint32_t(hashes), &o)
	return goBloomParams(o), int32(s)
}

// cBloomSize sizes a classic (counting = false) or counting Bloom filter.
func cBloomSize(p BloomParams, counting bool) (uint64, int32) {
	cp := cBloomParams(p)
	var o C.uint64_t
	var s C.sketch_status
	if counting {
		s = C.sketch_counting_size(&cp, &o)
	} else {
		s = C.sketch_bloom_size(&cp, &o)
	}
	return uint64(o), int32(s)
}

func cBloomInit(b []byte, p BloomParams, seed uint64, counting bool) int32 {
	ptr, n := img(b)
	cp := cBloomParams(p)
	if counting {
		return int32(C.sketch_counting_init(ptr, n, &cp, C.uint64_t(seed)))
	}
	return int32(C.sketch_bloom_init(ptr, n, &cp, C.uint64_t(seed)))
}

func cBloomAdd(b []byte, t *imageToken, key unsafe.Pointer, kn int) (bool, int32) {
	p, n := img(b)
	var o C.bool
	s := C.sk_bloom_add(bp(p), n, tp(t), bp(key), C.size_t(kn), &o)
	return bool(o), int32(s)
}

func cBloomAddU64(b []byte, t *imageToken, key uint64) (bool, int32) {
	p, n := img(b)
	var o C.bool
	s := C.sk_bloom_add_u64(bp(p), n, tp(t), C.uint64_t(key), &o)
	return bool(o), int32(s)
}

func cBloomContains(b []byte, t *imageToken, key unsafe.Pointer, kn int) (bool, int32) {
	p, n := img(b)
	var o C.bool
	s := C.sk_bloom_contains(bp(p), n, tp(t), bp(key), C.size_t(kn), &o)
	return bool(o), int32(s)
}

func cBloomContainsU64(b []byte, t *imageToken, key uint64) (bool, int32) {
	p, n := img(b)
	var o C.bool
	s := C.sk_bloom_contains_u64(bp(p), n, tp(t), C.uint64_t(key), &o)
	return bool(o), int32(s)
}

func cBloomStats(b []byte) (BloomStats, int32) {
	p, n := img(b)
	var o C.struct_sketch_bloom_stats
	s := C.sketch_bloom_get_stats(p, n, &o)
	return BloomStats{
		Params: goBloomParams(o.params), Seed: uint64(o.seed), AddCalls: uint64(o.add_calls),
		Inserted: uint64(o.inserted), SetBits: uint64(o.set_bits), Fill: float64(o.fill),
		EstimatedItems: float64(o.estimated_items), EstimatedFPR: float64(o.estimated_fpr),
		Capacity: CapacityFlags(o.capacity_flags),
	}, int32(s)
}

// ---- split-block Bloom ---------------------------------------------------------

func goSplitBlockParams(p C.struct_sketch_sbbf_params) SplitBlockParams {
	return SplitBlockParams{Blocks: uint64(p.blocks), PlannedItems: uint64(p.planned_items),
		PlannedFPR: float64(p.planned_fpr), Parquet: p.mode == C.SKETCH_SBBF_PARQUET}
}

func cSplitBlockParams(p SplitBlockParams) C.struct_sketch_sbbf_params {
	mode := C.uint32_t(C.SKETCH_SBBF_NATIVE)
	if p.Parquet {
		mode = C.SKETCH_SBBF_PARQUET
	}
	return C.struct_sketch_sbbf_params{blocks: C.uint64_t(p.Blocks), planned_items: C.uint64_t(p.PlannedItems),
		planned_fpr: C.double(p.PlannedFPR), mode: mode}
}

// cSplitBlockPlan plans from (items, fpr), natively or the Parquet way.
func cSplitBlockPlan(items uint64, fpr float64, parquet bool) (SplitBlockParams, int32) {
	var o C.struct_sketch_sbbf_params
	var s C.sketch_status
	if parquet {
		s = C.sketch_sbbf_plan_parquet(C.uint64_t(items), C.double(fpr), &o)
	} else {
		s = C.sketch_sbbf_plan(C.uint64_t(items), C.double(fpr), &o)
	}
	return goSplitBlockParams(o), int32(s)
}

func cSplitBlockPlanBlocks(blocks uint64, parquet bool) (SplitBlockParams, int32) {
	var o C.struct_sketch_sbbf_params
	mode := C.uint32_t(C.SKETCH_SBBF_NATIVE)
	if parquet {
		mode = C.SKETCH_SBBF_PARQUET
	}
	s := C.sketch_sbbf_plan_blocks(C.uint64_t(blocks), mode, &o)
	return goSplitBlockParams(o), int32(s)
}

func cSplitBlockSize(p SplitBlockParams) (uint64, int32) {
	cp := cSplitBlockParams(p)
	var o C.uint64_t
	s := C.sketch_sbbf_size(&cp, &o)
	return uint64(o), int32(s)
}

func cSplitBlockInit(b []byte, p SplitBlockParams, seed uint64) int32 {
	ptr, n := img(b)
	cp := cSplitBlockParams(p)
	return int32(C.sketch_sbbf_init(ptr, n, &cp, C.uint64_t(seed)))
}

// cSplitBlockBitset returns the byte offset and length of the blocks inside
// the image (the C function hands back a pointer into it).
func cSplitBlockBitset(b []byte) (int, int, int32) {
	p, n := img(b)
	var bits uintptr // written by C: an address inside the image, held as an integer
	var bn C.size_t
	s := C.sketch_sbbf_bitset(p, n, (**C.uint8_t)(unsafe.Pointer(&bits)), &bn)
	if s != 0 {
		return 0, 0, int32(s)
	}
	return int(bits - uintptr(p)), int(bn), 0
}

func cSplitBlockAdd(b []byte, t *imageToken, key unsafe.Pointer, kn int) (bool, int32) {
	p, n := img(b)
	var o C.bool
	s := C.sk_sbbf_add(bp(p), n, tp(t), bp(key), C.size_t(kn), &o)
	return bool(o), int32(s)
}

func cSplitBlockAddU64(b []byte, t *imageToken, key uint64) (bool, int32) {
	p, n := img(b)
	var o C.bool
	s := C.sk_sbbf_add_u64(bp(p), n, tp(t), C.uint64_t(key), &o)
	return bool(o), int32(s)
}

func cSplitBlockContains(b []byte, t *imageToken, key unsafe.Pointer, kn int) (bool, int32) {
	p, n := img(b)
	var o C.bool
	s := C.sk_sbbf_contains(bp(p), n, tp(t), bp(key), C.size_t(kn), &o)
	return bool(o), int32(s)
}

func cSplitBlockContainsU64(b []byte, t *imageToken, key uint64) (bool, int32) {
	p, n := img(b)
	var o C.bool
	s := C.sk_sbbf_contains_u64(bp(p), n, tp(t), C.uint64_t(key), &o)
	return bool(o), int32(s)
}

func cSplitBlockStats(b []byte) (SplitBlockStats, int32) {
	p, n := img(b)
	var o C.struct_sketch_sbbf_stats
	s := C.sketch_sbbf_get_stats(p, n, &o)
	return SplitBlockStats{
		Params: goSplitBlockParams(o.params), Seed: uint64(o.seed), AddCalls: uint64(o.add_calls),
		Inserted: uint64(o.inserted), SetBits: uint64(o.set_bits), Fill: float64(o.fill),
		EstimatedItems: float64(o.estimated_items), EstimatedFPR: float64(o.estimated_fpr),
		Capacity: CapacityFlags(o.capacity_flags),
	}, int32(s)
}

func cSplitBlockAddHash(b []byte, t *imageToken, h uint64) (bool, int32) {
	p, n := img(b)
	var o C.bool
	s := C.sk_sbbf_add_hash(bp(p), n, tp(t), C.uint64_t(h), &o)
	return bool(o), int32(s)
}

func cSplitBlockContainsHash(b []byte, t *imageToken, h uint64) (bool, int32) {
	p, n := img(b)
	var o C.bool
	s := C.sk_sbbf_contains_hash(bp(p), n, tp(t), C.uint64_t(h), &o)
	return bool(o), int32(s)
}

// ---- precomputed hashes (every family but split-block, above, and Top-k) ------

// cAddHash adds a precomputed hash to a Bloom, counting Bloom, HLL, ULL,
// ELL or MinHash sketch and reports whether it was new (changed the
// sketch). t is the image's token for Bloom and HLL, ignored otherwise.
func cAddHash(f Family, b []byte, t *imageToken, h uint64) (bool, int32) {
	p, n := img(b)
	k := C.uint64_t(h)
	var o C.bool
	var s C.sketch_status
	switch f {
	case FamilyBloom:
		s = C.sk_bloom_add_hash(bp(p), n, tp(t), k, &o)
	case FamilyCountingBloom:
		s = C.sk_counting_add_hash(bp(p), n, k, &o)
	case FamilyHLL:
		s = C.sk_hll_add_hash(bp(p), n, tp(t), k, &o)
	case FamilyULL:
		s = C.sk_ull_add_hash(bp(p), n, k, &o)
	case FamilyELL:
		s = C.sk_ell_add_hash(bp(p), n, k, &o)
	case FamilyMinHash:
		s = C.sk_minhash_add_hash(bp(p), n, k, &o)
	default:
		return false, int32(StatusWrongFamily)
	}
	return bool(o), int32(s)
}

// cContainsHash answers a precomputed hash's membership in a Bloom,
// counting Bloom, cuckoo or binary fuse filter (t: Bloom's token).
func cContainsHash(f Family, b []byte, t *imageToken, h uint64) (bool, int32) {
	p, n := img(b)
	k := C.uint64_t(h)
	var o C.bool
	var s C.sketch_status
	switch f {
	case FamilyBloom:
		s = C.sk_bloom_contains_hash(bp(p), n, tp(t), k, &o)
	case FamilyCountingBloom:
		s = C.sk_counting_contains_hash(bp(p), n, k, &o)
	case FamilyCuckoo:
		s = C.sk_cuckoo_contains_hash(bp(p), n, k, &o)
	case FamilyBinaryFuse:
		s = C.sk_fuse_contains_hash(bp(p), n, k, &o)
	default:
		return false, int32(StatusWrongFamily)
	}
	return bool(o), int32(s)
}

func cCuckooAddHash(b []byte, h uint64) int32 {
	p, n := img(b)
	return int32(C.sk_cuckoo_add_hash(bp(p), n, C.uint64_t(h)))
}

// cRemoveHash removes a precomputed hash from a counting Bloom or cuckoo filter.
func cRemoveHash(f Family, b []byte, h uint64) int32 {
	p, n := img(b)
	switch f {
	case FamilyCountingBloom:
		return int32(C.sk_counting_remove_hash(bp(p), n, C.uint64_t(h)))
	case FamilyCuckoo:
		return int32(C.sk_cuckoo_remove_hash(bp(p), n, C.uint64_t(h)))
	}
	return int32(StatusWrongFamily)
}

// cFilterAddHashes adds precomputed hashes to a Bloom, counting Bloom or
// cuckoo filter (out: nil, or per hash was-new / placed).
func cFilterAddHashes(f Family, b []byte, hashes []uint64, out []bool) int32 {
	p, n := img(b)
	k, cnt := u64s(hashes), C.size_t(len(hashes))
	switch f {
	case FamilyBloom:
		return int32(C.sketch_bloom_add_hash_batch(p, n, k, cnt, bools(out)))
	case FamilyCountingBloom:
		return int32(C.sketch_counting_add_hash_batch(p, n, k, cnt, bools(out)))
	case FamilyCuckoo:
		return int32(C.sketch_cuckoo_add_hash_batch(p, n, k, cnt, bools(out)))
	}
	return int32(StatusWrongFamily)
}

// cFilterContainsHashes answers precomputed hashes' membership in a Bloom,
// counting Bloom, cuckoo or binary fuse filter.
func cFilterContainsHashes(f Family, b []byte, hashes []uint64, out []bool) int32 {
	p, n := img(b)
	k, cnt := u64s(hashes), C.size_t(len(hashes))
	switch f {
	case FamilyBloom:
		return int32(C.sketch_bloom_contains_hash_batch(p, n, k, cnt, bools(out)))
	case FamilyCountingBloom:
		return int32(C.sketch_counting_contains_hash_batch(p, n, k, cnt, bools(out)))
	case FamilyCuckoo:
		return int32(C.sketch_cuckoo_contains_hash_batch(p, n, k, cnt, bools(out)))
	case FamilyBinaryFuse:
		return int32(C.sketch_fuse_contains_hash_batch(p, n, k, cnt, bools(out)))
	}
	return int32(StatusWrongFamily)
}

// cRemoveHashes removes precomputed hashes from a counting Bloom or
// cuckoo filter (out: nil, or per hash removed).
func cRemoveHashes(f Family, b []byte, hashes []uint64, out []bool) int32 {
	p, n := img(b)
	k, cnt := u64s(hashes), C.size_t(len(hashes))
	switch f {
	case FamilyCountingBloom:
		return int32(C.sketch_counting_remove_hash_batch(p, n, k, cnt, bools(out)))
	case FamilyCuckoo:
		return int32(C.sketch_cuckoo_remove_hash_batch(p, n, k, cnt, bools(out)))
	}
	return int32(StatusWrongFamily)
}

// cSetAddHashes adds precomputed hashes to an HLL, ULL, ELL or MinHash sketch.
func cSetAddHashes(f Family, b []byte, hashes []uint64) int32 {
	p, n := img(b)
	k, cnt := u64s(hashes), C.size_t(len(hashes))
	switch f {
	case FamilyHLL:
		return int32(C.sketch_hll_add_hash_batch(p, n, k, cnt))
	case FamilyULL:
		return int32(C.sketch_ull_add_hash_batch(p, n, k, cnt))
	case FamilyELL:
		return int32(C.sketch_ell_add_hash_batch(p, n, k, cnt))
	case FamilyMinHash:
		return int32(C.sketch_minhash_add_hash_batch(p, n, k, cnt))
	}
	return int32(StatusWrongFamily)
}

func cCountMinAddHash(b []byte, h, w uint64) int32 {
	p, n := img(b)
	return int32(C.sk_countmin_add_hash(bp(p), n, C.uint64_t(h), C.uint64_t(w)))
}

func cCountMinEstimateHash(b []byte, h uint64) (uint64, int32) {
	p, n := img(b)
	var o C.uint64_t
	s := C.sk_countmin_estimate_hash(bp(p), n, C.uint64_t(h), &o)
	return uint64(o), int32(s)
}

func cCountMinAddHashes(b []byte, hashes, weights []uint64) int32 {
	p, n := img(b)
	return int32(C.sketch_countmin_add_hash_batch(p, n, u64s(hashes), C.size_t(len(hashes)), u64s(weights)))
}

func cCountMinEstimateHashes(b []byte, hashes, out []uint64) int32 {
	p, n := img(b)
	return int32(C.sketch_countmin_estimate_hash_batch(p, n, u64s(hashes), C.size_t(len(hashes)), u64s(out)))
}

// cAddConcurrentHash adds a precomputed hash with atomic operations to a
// Bloom, split-block, HLL or ULL sketch (the _concurrent_hash forms).
func cAddConcurrentHash(f Family, b []byte, h uint64) (bool, int32) {
	p, n := img(b)
	k := C.uint64_t(h)
	var o C.bool
	var s C.sketch_status
	switch f {
	case FamilyBloom:
		s = C.sk_bloom_add_concurrent_hash(bp(p), n, k, &o)
	case FamilySplitBlock:
		s = C.sk_sbbf_add_concurrent_hash(bp(p), n, k, &o)
	case FamilyHLL:
		s = C.sk_hll_add_concurrent_hash(bp(p), n, k, &o)
	case FamilyULL:
		s = C.sk_ull_add_concurrent_hash(bp(p), n, k, &o)
	default:
		return false, int32(StatusWrongFamily)
	}
	return bool(o), int32(s)
}

// cContainsConcurrentHash answers a precomputed hash with atomic loads
// (Bloom or split-block filter).
func cContainsConcurrentHash(f Family, b []byte, h uint64) (bool, int32) {
	p, n := img(b)
	k := C.uint64_t(h)
	var o C.bool
	var s C.sketch_status
	switch f {
	case FamilyBloom:
		s = C.sk_bloom_contains_concurrent_hash(bp(p), n, k, &o)
	case FamilySplitBlock:
		s = C.sk_sbbf_contains_concurrent_hash(bp(p), n, k, &o)
	default:
		return false, int32(StatusWrongFamily)
	}
	return bool(o), int32(s)
}

// cContainsConcurrentHashes is cContainsConcurrentHash for many hashes.
func cContainsConcurrentHashes(f Family, b []byte, hashes []uint64, out []bool) int32 {
	p, n := img(b)
	k, cnt := u64s(hashes), C.size_t(len(hashes))
	switch f {
	case FamilyBloom:
		return int32(C.sketch_bloom_contains_concurrent_hash_batch(p, n, k, cnt, bools(out)))
	case FamilySplitBlock:
		return int32(C.sketch_sbbf_contains_concurrent_hash_batch(p, n, k, cnt, bools(out)))
	}
	return int32(StatusWrongFamily)
}

func cFuseBuildHashes(b []byte, p BinaryFuseParams, seed uint64, hashes []uint64, scratch []byte) int32 {
	ptr, n := img(b)
	cp := cFuseParams(p)
	return int32(C.sketch_fuse_build_hash_batch(ptr, n, &cp, C.uint64_t(seed), u64s(hashes), C.size_t(len(hashes)),
		bytesPtr(scratch), C.size_t(len(scratch))))
}

// ---- Parquet interop -----------------------------------------------------------

// ParquetSizing's values are the header's SKETCH_PARQUET_SIZING_*: each line
// fails to compile when they differ in one direction.
const (
	_ = uint32(C.SKETCH_PARQUET_SIZING_PARQUET_RS - uint32(ParquetSizingParquetRS))
	_ = uint32(uint32(ParquetSizingParquetRS) - C.SKETCH_PARQUET_SIZING_PARQUET_RS)
	_ = uint32(C.SKETCH_PARQUET_SIZING_DUCKDB - uint32(ParquetSizingDuckDB))
	_ = uint32(uint32(ParquetSizingDuckDB) - C.SKETCH_PARQUET_SIZING_DUCKDB)
	_ = uint32(C.SKETCH_PARQUET_SIZING_ARROW_CPP - uint32(ParquetSizingArrowCPP))
	_ = uint32(uint32(ParquetSizingArrowCPP) - C.SKETCH_PARQUET_SIZING_ARROW_CPP)
)

func cHashXXH64(key unsafe.Pointer, kn int, seed uint64) uint64 {
	return uint64(C.sk_hash_xxh64(bp(key), C.size_t(kn), C.uint64_t(seed)))
}

func cHash(key unsafe.Pointer, kn int, seed uint64) uint64 {
	return uint64(C.sk_hash(bp(key), C.size_t(kn), C.uint64_t(seed)))
}

func cHashUint64(key, seed uint64) uint64 {
	return uint64(C.sketch_hash_u64(C.uint64_t(key), C.uint64_t(seed)))
}

func cParquetHashBytes(key unsafe.Pointer, kn int) uint64 {
	return uint64(C.sk_parquet_hash_bytes(bp(key), C.size_t(kn)))
}

func cParquetHashInt32(v int32) uint64 { return uint64(C.sketch_parquet_hash_i32(C.int32_t(v))) }

func cParquetHashInt64(v int64) uint64 { return uint64(C.sketch_parquet_hash_i64(C.int64_t(v))) }

func cParquetHashFloat32(v float32) uint64 { return uint64(C.sketch_parquet_hash_float(C.float(v))) }

func cParquetHashFloat64(v float64) uint64 { return uint64(C.sketch_parquet_hash_double(C.double(v))) }

func cSplitBlockPlanParquetSizing(ndv uint64, fpp float64, sizing ParquetSizing) (SplitBlockParams, int32) {
	var o C.struct_sketch_sbbf_params
	s := C.sketch_sbbf_plan_parquet_sizing(C.uint64_t(ndv), C.double(fpp), C.uint32_t(sizing), &o)
	return goSplitBlockParams(o), int32(s)
}

func cSplitBlockPlanParquetBitset(bitsetLen int, fpr float64) (SplitBlockParams, int32) {
	var o C.struct_sketch_sbbf_params
	s := C.sketch_sbbf_plan_parquet_bitset(C.size_t(bitsetLen), C.double(fpr), &o)
	return goSplitBlockParams(o), int32(s)
}

// cSplitBlockLoadParquetBitset writes into b a live Parquet-mode image
// whose blocks are a copy of bitset.
func cSplitBlockLoadParquetBitset(b, bitset []byte, p SplitBlockParams) int32 {
	ptr, n := img(b)
	cp := cSplitBlockParams(p)
	return int32(C.sk_sbbf_load_parquet_bitset(bp(ptr), n, bp(bytesPtr(bitset)), C.size_t(len(bitset)), &cp))
}

// cSplitBlockFold folds the image in place and returns its new length.
func cSplitBlockFold(b []byte, folds uint32) (int, int32) {
	p, n := img(b)
	var o C.size_t
	s := C.sketch_sbbf_fold(p, n, C.uint32_t(folds), &o)
	return int(o), int32(s)
}

// cSplitBlockFoldToTargetFPP folds the image in place as Parquet writers
// do and returns the number of folds and the new length.
func cSplitBlockFoldToTargetFPP(b []byte, fpp float64) (uint32, int, int32) {
	p, n := img(b)
	var folds C.uint32_t
	var o C.size_t
	s := C.sketch_sbbf_fold_to_target_fpp(p, n, C.double(fpp), &folds, &o)
	return uint32(folds), int(o), int32(s)
}

// ---- counting Bloom ------------------------------------------------------------

func cCountingAdd(b []byte, key unsafe.Pointer, kn int) (bool, int32) {
	p, n := img(b)
	var o C.bool
	s := C.sk_counting_add(bp(p), n, bp(key), C.size_t(kn), &o)
	return bool(o), int32(s)
}

func cCountingAddU64(b []byte, key uint64) (bool, int32) {
	p, n := img(b)
	var o C.bool
	s := C.sk_counting_add_u64(bp(p), n, C.uint64_t(key), &o)
	return bool(o), int32(s)
}

func cCountingContains(b []byte, key unsafe.Pointer, kn int) (bool, int32) {
	p, n := img(b)
	var o C.bool
	s := C.sk_counting_contains(bp(p), n, bp(key), C.size_t(kn), &o)
	return bool(o), int32(s)
}

func cCountingContainsU64(b []byte, key uint64) (bool, int32) {
	p, n := img(b)
	var o C.bool
	s := C.sk_counting_contains_u64(bp(p), n, C.uint64_t(key), &o)
	return bool(o), int32(s)
}

func cCountingRemove(b []byte, key unsafe.Pointer, kn int) int32 {
	p, n := img(b)
	return int32(C.sk_counting_remove(bp(p), n, bp(key), C.size_t(kn)))
}

func cCountingRemoveU64(b []byte, key uint64) int32 {
	p, n := img(b)
	return int32(C.sk_counting_remove_u64(bp(p), n, C.uint64_t(key)))
}

func cCountingRemovePacked(b, data []byte, offs []uint32, out []bool) int32 {
	p, n := img(b)
	return int32(C.sketch_counting_remove_packed(p, n, bytesPtr(data), C.size_t(len(data)), offsets(offs),
		C.size_t(len(offs)-1), bools(out)))
}

func cCountingRemoveU64s(b []byte, keys []uint64, out []bool) int32 {
	p, n := img(b)
	return int32(C.sketch_counting_remove_u64_batch(p, n, u64s(keys), C.size_t(len(keys)), bools(out)))
}

func cCountingStats(b []byte) (CountingBloomStats, int32) {
	p, n := img(b)
	var o C.struct_sketch_counting_stats
	s := C.sketch_counting_get_stats(p, n, &o)
	return CountingBloomStats{
		Params: goBloomParams(o.params), Seed: uint64(o.seed), AddCalls: uint64(o.add_calls),
		Removes: uint64(o.removes), Items: uint64(o.items), NonzeroCounters: uint64(o.nonzero_counters),
		SaturatedCounters: uint64(o.saturated_counters), EstimatedFPR: float64(o.estimated_fpr),
		Capacity: CapacityFlags(o.capacity_flags),
	}, int32(s)
}

// ---- cuckoo --------------------------------------------------------------------

func goCuckooParams(p C.struct_sketch_cuckoo_params) CuckooParams {
	return CuckooParams{Buckets: uint64(p.buckets), FingerprintBits: uint32(p.fingerprint_bits),
		PlannedItems: uint64(p.planned_items), PlannedFPR: float64(p.planned_fpr)}
}

func cCuckooParams(p CuckooParams) C.struct_sketch_cuckoo_params {
	return C.struct_sketch_cuckoo_params{buckets: C.uint64_t(p.Buckets), fingerprint_bits: C.uint32_t(p.FingerprintBits),
		planned_items: C.uint64_t(p.PlannedItems), planned_fpr: C.double(p.PlannedFPR)}
}

func cCuckooPlan(items uint64, fpr float64) (CuckooParams, int32) {
	var o C.struct_sketch_cuckoo_params
	s := C.sketch_cuckoo_plan(C.uint64_t(items), C.double(fpr), &o)
	return goCuckooParams(o), int32(s)
}

func cCuckooPlanBuckets(buckets uint64, bits uint32) (CuckooParams, int32) {
	var o C.struct_sketch_cuckoo_params
	s := C.sketch_cuckoo_plan_buckets(C.uint64_t(buckets), C.uint32_t(bits), &o)
	return goCuckooParams(o), int32(s)
}

func cCuckooSize(p CuckooParams) (uint64, int32) {
	cp := cCuckooParams(p)
	var o C.uint64_t
	s := C.sketch_cuckoo_size(&cp, &o)
	return uint64(o), int32(s)
}

func cCuckooInit(b []byte, p CuckooParams, seed uint64) int32 {
	ptr, n := img(b)
	cp := cCuckooParams(p)
	return int32(C.sketch_cuckoo_init(ptr, n, &cp, C.uint64_t(seed)))
}

func cCuckooAdd(b []byte, key unsafe.Pointer, kn int) int32 {
	p, n := img(b)
	return int32(C.sk_cuckoo_add(bp(p), n, bp(key), C.size_t(kn)))
}

func cCuckooAddU64(b []byte, key uint64) int32 {
	p, n := img(b)
	return int32(C.sk_cuckoo_add_u64(bp(p), n, C.uint64_t(key)))
}

func cCuckooContains(b []byte, key unsafe.Pointer, kn int) (bool, int32) {
	p, n := img(b)
	var o C.bool
	s := C.sk_cuckoo_contains(bp(p), n, bp(key), C.size_t(kn), &o)
	return bool(o), int32(s)
}

func cCuckooContainsU64(b []byte, key uint64) (bool, int32) {
	p, n := img(b)
	var o C.bool
	s := C.sk_cuckoo_contains_u64(bp(p), n, C.uint64_t(key), &o)
	return bool(o), int32(s)
}

func cCuckooCount(b []byte, key unsafe.Pointer, kn int) (uint32, int32) {
	p, n := img(b)
	var o C.uint32_t
	s := C.sk_cuckoo_count(bp(p), n, bp(key), C.size_t(kn), &o)
	return uint32(o), int32(s)
}

func cCuckooRemove(b []byte, key unsafe.Pointer, kn int) int32 {
	p, n := img(b)
	return int32(C.sk_cuckoo_remove(bp(p), n, bp(key), C.size_t(kn)))
}

func cCuckooRemoveU64(b []byte, key uint64) int32 {
	p, n := img(b)
	return int32(C.sk_cuckoo_remove_u64(bp(p), n, C.uint64_t(key)))
}

// cCuckooRemovePacked removes packed keys; out (nil, or one slot per key)
// receives removed flags.
func cCuckooRemovePacked(b, data []byte, offs []uint32, out []bool) int32 {
	p, n := img(b)
	return int32(C.sketch_cuckoo_remove_packed(p, n, bytesPtr(data), C.size_t(len(data)), offsets(offs),
		C.size_t(len(offs)-1), bools(out)))
}

func cCuckooRemoveU64s(b []byte, keys []uint64, out []bool) int32 {
	p, n := img(b)
	return int32(C.sketch_cuckoo_remove_u64_batch(p, n, u64s(keys), C.size_t(len(keys)), bools(out)))
}

func cCuckooMerge(dst, src, scratch []byte) int32 {
	dp, dn := img(dst)
	sp, sn := img(src)
	xp, xn := img(scratch)
	return int32(C.sketch_cuckoo_merge(dp, dn, sp, sn, xp, xn))
}

func cCuckooStats(b []byte) (CuckooStats, int32) {
	p, n := img(b)
	var o C.struct_sketch_cuckoo_stats
	s := C.sketch_cuckoo_get_stats(p, n, &o)
	return CuckooStats{
		Params: goCuckooParams(o.params), Seed: uint64(o.seed), Items: uint64(o.items),
		Load: float64(o.load), EstimatedFPR: float64(o.estimated_fpr), Capacity: CapacityFlags(o.capacity_flags),
	}, int32(s)
}

// ---- cardinality and similarity: HLL, ULL, MinHash ----------------------------

func cCardinalitySize(f Family, p uint8) (uint64, int32) {
	var o C.uint64_t
	var s C.sketch_status
	if f == FamilyULL {
		s = C.sketch_ull_size(C.uint8_t(p), &o)
	} else {
		s = C.sketch_hll_size(C.uint8_t(p), &o)
	}
	return uint64(o), int32(s)
}

func cCardinalityInit(f Family, b []byte, p uint8, seed uint64) int32 {
	ptr, n := img(b)
	if f == FamilyULL {
		return int32(C.sketch_ull_init(ptr, n, C.uint8_t(p), C.uint64_t(seed)))
	}
	return int32(C.sketch_hll_init(ptr, n, C.uint8_t(p), C.uint64_t(seed)))
}

func cHLLAdd(b []byte, t *imageToken, key unsafe.Pointer, kn int) (bool, int32) {
	p, n := img(b)
	var o C.bool
	s := C.sk_hll_add(bp(p), n, tp(t), bp(key), C.size_t(kn), &o)
	return bool(o), int32(s)
}

func cHLLAddU64(b []byte, t *imageToken, key uint64) (bool, int32) {
	p, n := img(b)
	var o C.bool
	s := C.sk_hll_add_u64(bp(p), n, tp(t), C.uint64_t(key), &o)
	return bool(o), int32(s)
}

func cULLAdd(b []byte, key unsafe.Pointer, kn int) (bool, int32) {
	p, n := img(b)
	var o C.bool
	s := C.sk_ull_add(bp(p), n, bp(key), C.size_t(kn), &o)
	return bool(o), int32(s)
}

func cULLAddU64(b []byte, key uint64) (bool, int32) {
	p, n := img(b)
	var o C.bool
	s := C.sk_ull_add_u64(bp(p), n, C.uint64_t(key), &o)
	return bool(o), int32(s)
}

func cMinHashAdd(b []byte, key unsafe.Pointer, kn int) (bool, int32) {
	p, n := img(b)
	var o C.bool
	s := C.sk_minhash_add(bp(p), n, bp(key), C.size_t(kn), &o)
	return bool(o), int32(s)
}

func cMinHashAddU64(b []byte, key uint64) (bool, int32) {
	p, n := img(b)
	var o C.bool
	s := C.sk_minhash_add_u64(bp(p), n, C.uint64_t(key), &o)
	return bool(o), int32(s)
}

// cSetAddPacked adds packed keys to an HLL, ULL, ELL or MinHash sketch.
func cSetAddPacked(f Family, b, data []byte, offs []uint32) int32 {
	p, n := img(b)
	d, dn, o, cnt := bytesPtr(data), C.size_t(len(data)), offsets(offs), C.size_t(len(offs)-1)
	switch f {
	case FamilyHLL:
		return int32(C.sketch_hll_add_packed(p, n, d, dn, o, cnt))
	case FamilyULL:
		return int32(C.sketch_ull_add_packed(p, n, d, dn, o, cnt))
	case FamilyMinHash:
		return int32(C.sketch_minhash_add_packed(p, n, d, dn, o, cnt))
	case FamilyELL:
		return int32(C.sketch_ell_add_packed(p, n, d, dn, o, cnt))
	}
	return int32(StatusWrongFamily)
}

func cSetAddU64s(f Family, b []byte, keys []uint64) int32 {
	p, n := img(b)
	k, cnt := u64s(keys), C.size_t(len(keys))
	switch f {
	case FamilyHLL:
		return int32(C.sketch_hll_add_u64_batch(p, n, k, cnt))
	case FamilyULL:
		return int32(C.sketch_ull_add_u64_batch(p, n, k, cnt))
	case FamilyMinHash:
		return int32(C.sketch_minhash_add_u64_batch(p, n, k, cnt))
	case FamilyELL:
		return int32(C.sketch_ell_add_u64_batch(p, n, k, cnt))
	}
	return int32(StatusWrongFamily)
}

// Estimators of cEstimate.
const (
	estimateDefault  = iota // martingale while valid, else from the registers
	estimateRegister        // from the registers (HLL: Ertl; ULL: FGRA)
	estimateML              // ULL maximum likelihood
)

func cEstimate(f Family, b []byte, which int) (float64, int32) {
	p, n := img(b)
	var o C.double
	var s C.sketch_status
	switch {
	case f == FamilyHLL && which == estimateDefault:
		s = C.sketch_hll_estimate(p, n, &o)
	case f == FamilyHLL:
		s = C.sketch_hll_register_estimate(p, n, &o)
	case which == estimateDefault:
		s = C.sketch_ull_estimate(p, n, &o)
	case which == estimateRegister:
		s = C.sketch_ull_register_estimate(p, n, &o)
	default:
		s = C.sketch_ull_ml_estimate(p, n, &o)
	}
	return float64(o), int32(s)
}

func cHLLExportedSize(b []byte) (int, int32) {
	p, n := img(b)
	var o C.size_t
	s := C.sketch_hll_exported_size(p, n, &o)
	return int(o), int32(s)
}

func cHLLDownsize(src, dst []byte, prec uint8) int32 {
	sp, sn := img(src)
	dp, dn := img(dst)
	return int32(C.sketch_hll_downsize(sp, sn, dp, dn, C.uint8_t(prec)))
}

func cULLToHLL(src, dst []byte) int32 {
	sp, sn := img(src)
	dp, dn := img(dst)
	return int32(C.sketch_ull_to_hll(sp, sn, dp, dn))
}

func cHLLStats(b []byte) (HLLStats, int32) {
	p, n := img(b)
	var o C.struct_sketch_hll_stats
	s := C.sketch_hll_get_stats(p, n, &o)
	return HLLStats{
		Precision: uint8(o.precision), Dense: o.mode == C.SKETCH_HLL_MODE_DENSE, Martingale: o.martingale != 0,
		SmallCount: uint32(o.small_count), SmallCapacity: uint32(o.small_capacity),
		RegistersSet: uint32(o.registers_set), Seed: uint64(o.seed), Estimate: float64(o.estimate),
		ImageBytes: uint64(o.image_bytes),
	}, int32(s)
}

func cULLStats(b []byte) (ULLStats, int32) {
	p, n := img(b)
	var o C.struct_sketch_ull_stats
	s := C.sketch_ull_get_stats(p, n, &o)
	return ULLStats{
		Precision: uint8(o.precision), Martingale: o.martingale != 0, RegistersSet: uint32(o.registers_set),
		Seed: uint64(o.seed), Estimate: float64(o.estimate), ImageBytes: uint64(o.image_bytes),
	}, int32(s)
}

func cMinHashSize(k uint32) (uint64, int32) {
	var o C.uint64_t
	s := C.sketch_minhash_size(C.uint32_t(k), &o)
	return uint64(o), int32(s)
}

func cMinHashInit(b []byte, k uint32, seed uint64) int32 {
	p, n := img(b)
	return int32(C.sketch_minhash_init(p, n, C.uint32_t(k), C.uint64_t(seed)))
}

func cMinHashJaccard(a, b []byte) (float64, int32) {
	ap, an := img(a)
	bp, bn := img(b)
	var o C.double
	s := C.sketch_minhash_jaccard(ap, an, bp, bn, &o)
	return float64(o), int32(s)
}

func cMinHashSignature(b []byte, out []uint64) int32 {
	p, n := img(b)
	return int32(C.sketch_minhash_signature(p, n, u64s(out), C.size_t(len(out))))
}

func cMinHashStats(b []byte) (MinHashStats, int32) {
	p, n := img(b)
	var o C.struct_sketch_minhash_stats
	s := C.sketch_minhash_get_stats(p, n, &o)
	return MinHashStats{K: uint32(o.registers), Filled: uint32(o.filled), Seed: uint64(o.seed)}, int32(s)
}

// ---- ExaLogLog ---------------------------------------------------------------------

func goELLParams(p C.struct_sketch_ell_params) ELLParams {
	return ELLParams{T: uint8(p.t), D: uint8(p.d), Precision: uint8(p.precision)}
}

func cELLParams(p ELLParams) C.struct_sketch_ell_params {
	return C.struct_sketch_ell_params{t: C.uint32_t(p.T), d: C.uint32_t(p.D), precision: C.uint32_t(p.Precision)}
}

func cELLPlan(relativeError float64, d uint8) (ELLParams, int32) {
	var o C.struct_sketch_ell_params
	s := C.sketch_ell_plan(C.double(relativeError), C.uint32_t(d), &o)
	return goELLParams(o), int32(s)
}

func cELLSize(p ELLParams) (uint64, int32) {
	cp := cELLParams(p)
	var o C.uint64_t
	s := C.sketch_ell_size(&cp, &o)
	return uint64(o), int32(s)
}

func cELLInit(b []byte, p ELLParams, seed uint64) int32 {
	ptr, n := img(b)
	cp := cELLParams(p)
	return int32(C.sketch_ell_init(ptr, n, &cp, C.uint64_t(seed)))
}

func cELLAdd(b []byte, key unsafe.Pointer, kn int) (bool, int32) {
	p, n := img(b)
	var o C.bool
	s := C.sk_ell_add(bp(p), n, bp(key), C.size_t(kn), &o)
	return bool(o), int32(s)
}

func cELLAddU64(b []byte, key uint64) (bool, int32) {
	p, n := img(b)
	var o C.bool
	s := C.sk_ell_add_u64(bp(p), n, C.uint64_t(key), &o)
	return bool(o), int32(s)
}

// Estimators of cELLEstimate (estimateDefault and estimateML as for ULL).
const estimateMartingale = estimateML + 1

func cELLEstimate(b []byte, which int) (float64, int32) {
	p, n := img(b)
	var o C.double
	var s C.sketch_status
	switch which {
	case estimateDefault:
		s = C.sketch_ell_estimate(p, n, &o)
	case estimateMartingale:
		s = C.sketch_ell_martingale_estimate(p, n, &o)
	default:
		s = C.sketch_ell_ml_estimate(p, n, &o)
	}
	return float64(o), int32(s)
}

func cELLDownsize(src, dst []byte, params ELLParams) int32 {
	sp, sn := img(src)
	dp, dn := img(dst)
	cp := cELLParams(params)
	return int32(C.sketch_ell_downsize(sp, sn, dp, dn, &cp))
}

func cELLExportedSize(b []byte) (int, int32) {
	p, n := img(b)
	var o C.size_t
	s := C.sketch_ell_exported_size(p, n, &o)
	return int(o), int32(s)
}

func cELLStats(b []byte) (ELLStats, int32) {
	p, n := img(b)
	var o C.struct_sketch_ell_stats
	s := C.sketch_ell_get_stats(p, n, &o)
	return ELLStats{
		Params: goELLParams(o.params), Seed: uint64(o.seed), RegistersSet: uint64(o.registers_set),
		Estimate: float64(o.estimate), StandardError: float64(o.standard_error), ImageBytes: uint64(o.image_bytes),
		Martingale: o.martingale != 0,
	}, int32(s)
}

// ---- binary fuse filter --------------------------------------------------------------

func goFuseParams(p C.struct_sketch_fuse_params) BinaryFuseParams {
	return BinaryFuseParams{Keys: uint64(p.keys), FingerprintBits: uint32(p.fingerprint_bits)}
}

func cFuseParams(p BinaryFuseParams) C.struct_sketch_fuse_params {
	return C.struct_sketch_fuse_params{keys: C.uint64_t(p.Keys), fingerprint_bits: C.uint32_t(p.FingerprintBits)}
}

func cFusePlan(keys uint64, fpr float64) (BinaryFuseParams, int32) {
	var o C.struct_sketch_fuse_params
	s := C.sketch_fuse_plan(C.uint64_t(keys), C.double(fpr), &o)
	return goFuseParams(o), int32(s)
}

func cFusePlanBits(keys uint64, bits uint32) (BinaryFuseParams, int32) {
	var o C.struct_sketch_fuse_params
	s := C.sketch_fuse_plan_bits(C.uint64_t(keys), C.uint32_t(bits), &o)
	return goFuseParams(o), int32(s)
}

// cFuseSizes returns the image and scratch sizes a build with p needs.
func cFuseSizes(p BinaryFuseParams) (size, scratch uint64, status int32) {
	cp := cFuseParams(p)
	var o, w C.uint64_t
	if s := C.sketch_fuse_size(&cp, &o); s != 0 {
		return 0, 0, int32(s)
	}
	s := C.sketch_fuse_scratch_size(&cp, &w)
	return uint64(o), uint64(w), int32(s)
}

// cFuseBuildPacked builds b from all keys packed in data and offs (one
// call: a build needs every key at once), using scratch.
func cFuseBuildPacked(b []byte, p BinaryFuseParams, seed uint64, data []byte, offs []uint32, scratch []byte) int32 {
	ptr, n := img(b)
	cp := cFuseParams(p)
	return int32(C.sketch_fuse_build_packed(ptr, n, &cp, C.uint64_t(seed), bytesPtr(data), C.size_t(len(data)),
		offsets(offs), C.size_t(len(offs)-1), bytesPtr(scratch), C.size_t(len(scratch))))
}

func cFuseBuildU64s(b []byte, p BinaryFuseParams, seed uint64, keys []uint64, scratch []byte) int32 {
	ptr, n := img(b)
	cp := cFuseParams(p)
	return int32(C.sketch_fuse_build_u64_batch(ptr, n, &cp, C.uint64_t(seed), u64s(keys), C.size_t(len(keys)),
		bytesPtr(scratch), C.size_t(len(scratch))))
}

func cFuseContains(b []byte, key unsafe.Pointer, kn int) (bool, int32) {
	p, n := img(b)
	var o C.bool
	s := C.sk_fuse_contains(bp(p), n, bp(key), C.size_t(kn), &o)
	return bool(o), int32(s)
}

func cFuseContainsU64(b []byte, key uint64) (bool, int32) {
	p, n := img(b)
	var o C.bool
	s := C.sk_fuse_contains_u64(bp(p), n, C.uint64_t(key), &o)
	return bool(o), int32(s)
}

func cFuseStats(b []byte) (BinaryFuseStats, int32) {
	p, n := img(b)
	var o C.struct_sketch_fuse_stats
	s := C.sketch_fuse_get_stats(p, n, &o)
	return BinaryFuseStats{
		Params: goFuseParams(o.params), Seed: uint64(o.seed), Keys: uint64(o.keys), FuseSeed: uint64(o.fuse_seed),
		BitsPerKey: float64(o.bits_per_key), ImageBytesPerKey: float64(o.image_bytes_per_key),
		ImageBytes: uint64(o.image_bytes), FPR: float64(o.fpr), Attempts: uint32(o.attempts),
	}, int32(s)
}

// ---- Count-Min -------------------------------------------------------------------

func goCountMinParams(p C.struct_sketch_countmin_params) CountMinParams {
	return CountMinParams{Width: uint64(p.width), Depth: uint32(p.depth), CounterBits: uint32(p.counter_bits),
		Conservative: p.conservative != 0}
}

func cCountMinParams(p CountMinParams) C.struct_sketch_countmin_params {
	cons := C.uint32_t(0)
	if p.Conservative {
		cons = 1
	}
	return C.struct_sketch_countmin_params{width: C.uint64_t(p.Width), depth: C.uint32_t(p.Depth),
		counter_bits: C.uint32_t(p.CounterBits), conservative: cons}
}

func cCountMinPlan(epsilon, delta float64) (CountMinParams, int32) {
	var o C.struct_sketch_countmin_params
	s := C.sketch_countmin_plan(C.double(epsilon), C.double(delta), &o)
	return goCountMinParams(o), int32(s)
}

func cCountMinPlanSize(width uint64, depth uint32) (CountMinParams, int32) {
	var o C.struct_sketch_countmin_params
	s := C.sketch_countmin_plan_size(C.uint64_t(width), C.uint32_t(depth), &o)
	return goCountMinParams(o), int32(s)
}

func cCountMinSize(p CountMinParams) (uint64, int32) {
	cp := cCountMinParams(p)
	var o C.uint64_t
	s := C.sketch_countmin_size(&cp, &o)
	return uint64(o), int32(s)
}

func cCountMinInit(b []byte, p CountMinParams, seed uint64) int32 {
	ptr, n := img(b)
	cp := cCountMinParams(p)
	return int32(C.sketch_countmin_init(ptr, n, &cp, C.uint64_t(seed)))
}

func cCountMinAdd(b []byte, key unsafe.Pointer, kn int, w uint64) int32 {
	p, n := img(b)
	return int32(C.sk_countmin_add(bp(p), n, bp(key), C.size_t(kn), C.uint64_t(w)))
}

func cCountMinAddU64(b []byte, key, w uint64) int32 {
	p, n := img(b)
	return int32(C.sk_countmin_add_u64(bp(p), n, C.uint64_t(key), C.uint64_t(w)))
}

func cCountMinAddPacked(b, data []byte, offs []uint32, weights []uint64) int32 {
	p, n := img(b)
	return int32(C.sketch_countmin_add_packed(p, n, bytesPtr(data), C.size_t(len(data)), offsets(offs),
		C.size_t(len(offs)-1), u64s(weights)))
}

func cCountMinAddU64s(b []byte, keys, weights []uint64) int32 {
	p, n := img(b)
	return int32(C.sketch_countmin_add_u64_batch(p, n, u64s(keys), C.size_t(len(keys)), u64s(weights)))
}

func cCountMinEstimate(b []byte, key unsafe.Pointer, kn int) (uint64, int32) {
	p, n := img(b)
	var o C.uint64_t
	s := C.sk_countmin_estimate(bp(p), n, bp(key), C.size_t(kn), &o)
	return uint64(o), int32(s)
}

func cCountMinEstimateU64(b []byte, key uint64) (uint64, int32) {
	p, n := img(b)
	var o C.uint64_t
	s := C.sk_countmin_estimate_u64(bp(p), n, C.uint64_t(key), &o)
	return uint64(o), int32(s)
}

func cCountMinEstimatePacked(b, data []byte, offs []uint32, out []uint64) int32 {
	p, n := img(b)
	return int32(C.sketch_countmin_estimate_packed(p, n, bytesPtr(data), C.size_t(len(data)), offsets(offs),
		C.size_t(len(offs)-1), u64s(out)))
}

func cCountMinEstimateU64s(b []byte, keys, out []uint64) int32 {
	p, n := img(b)
	return int32(C.sketch_countmin_estimate_u64_batch(p, n, u64s(keys), C.size_t(len(keys)), u64s(out)))
}

func cCountMinStats(b []byte) (CountMinStats, int32) {
	p, n := img(b)
	var o C.struct_sketch_countmin_stats
	s := C.sketch_countmin_get_stats(p, n, &o)
	return CountMinStats{Params: goCountMinParams(o.params), Seed: uint64(o.seed), Total: uint64(o.total),
		Epsilon: float64(o.epsilon), Delta: float64(o.delta), ErrorBound: float64(o.error_bound)}, int32(s)
}

// ---- Top-k -----------------------------------------------------------------------

func cTopKSize(capacity, maxKeyLen uint32) (uint64, int32) {
	var o C.uint64_t
	s := C.sketch_topk_size(C.uint32_t(capacity), C.uint32_t(maxKeyLen), &o)
	return uint64(o), int32(s)
}

func cTopKInit(b []byte, capacity, maxKeyLen uint32, seed uint64) int32 {
	p, n := img(b)
	return int32(C.sketch_topk_init(p, n, C.uint32_t(capacity), C.uint32_t(maxKeyLen), C.uint64_t(seed)))
}

func cTopKAdd(b []byte, key unsafe.Pointer, kn int, w uint64) int32 {
	p, n := img(b)
	return int32(C.sk_topk_add(bp(p), n, bp(key), C.size_t(kn), C.uint64_t(w)))
}

func cTopKAddU64(b []byte, key, w uint64) int32 {
	p, n := img(b)
	return int32(C.sk_topk_add_u64(bp(p), n, C.uint64_t(key), C.uint64_t(w)))
}

func cTopKAddPacked(b, data []byte, offs []uint32, weights []uint64) int32 {
	p, n := img(b)
	return int32(C.sketch_topk_add_packed(p, n, bytesPtr(data), C.size_t(len(data)), offsets(offs),
		C.size_t(len(offs)-1), u64s(weights)))
}

func cTopKAddU64s(b []byte, keys, weights []uint64) int32 {
	p, n := img(b)
	return int32(C.sketch_topk_add_u64_batch(p, n, u64s(keys), C.size_t(len(keys)), u64s(weights)))
}

func cTopKEstimate(b []byte, key unsafe.Pointer, kn int) (TopKEstimate, int32) {
	p, n := img(b)
	var o C.struct_sketch_topk_key_estimate
	s := C.sk_topk_estimate(bp(p), n, bp(key), C.size_t(kn), &o)
	return TopKEstimate{Count: uint64(o.count), Error: uint64(o.error), Listed: bool(o.listed)}, int32(s)
}

// topkItem mirrors struct sketch_topk_item with the key pointer held as an
// integer: the C function writes pointers into the image, and Go memory
// holding them must not be typed as pointers the collector would chase.
type topkItem struct {
	key    uintptr
	keyLen uintptr
	count  uint64
	err    uint64
}

// The layouts must agree (compile-time check: the index is 0 only when equal).
var _ = [1]int{}[unsafe.Sizeof(topkItem{})-C.sizeof_struct_sketch_topk_item]

// cTopKList lists up to len(items) keys; key offsets are relative to the image start.
func cTopKList(b []byte, items []topkItem) (int, int32) {
	p, n := img(b)
	if len(items) == 0 {
		return 0, 0
	}
	var w C.size_t
	s := C.sketch_topk_list(p, n, (*C.struct_sketch_topk_item)(unsafe.Pointer(&items[0])), C.size_t(len(items)), &w)
	if s == 0 {
		base := uintptr(p)
		for i := range items[:int(w)] {
			items[i].key -= base
		}
	}
	return int(w), int32(s)
}

func cTopKStats(b []byte) (TopKStats, int32) {
	p, n := img(b)
	var o C.struct_sketch_topk_stats
	s := C.sketch_topk_get_stats(p, n, &o)
	return TopKStats{Capacity: uint32(o.capacity), MaxKeyLen: uint32(o.max_key_len), Used: uint32(o.used),
		Seed: uint64(o.seed), Total: uint64(o.total), MinCount: uint64(o.min_count)}, int32(s)
}

// ---- concurrent adds and queries (Bloom, split-block, HLL, ULL) -------------------
//
// The library's _concurrent functions: any number of goroutines may call
// them on one image at once (atomic operations on its 64-bit words); while
// one runs, only they may touch that image. They take no token.

func cBloomAddConcurrent(b []byte, key unsafe.Pointer, kn int) (bool, int32) {
	p, n := img(b)
	var o C.bool
	s := C.sk_bloom_add_concurrent(bp(p), n, bp(key), C.size_t(kn), &o)
	return bool(o), int32(s)
}

func cBloomAddConcurrentU64(b []byte, key uint64) (bool, int32) {
	p, n := img(b)
	var o C.bool
	s := C.sk_bloom_add_concurrent_u64(bp(p), n, C.uint64_t(key), &o)
	return bool(o), int32(s)
}

func cBloomContainsConcurrent(b []byte, key unsafe.Pointer, kn int) (bool, int32) {
	p, n := img(b)
	var o C.bool
	s := C.sk_bloom_contains_concurrent(bp(p), n, bp(key), C.size_t(kn), &o)
	return bool(o), int32(s)
}

func cBloomContainsConcurrentU64(b []byte, key uint64) (bool, int32) {
	p, n := img(b)
	var o C.bool
	s := C.sk_bloom_contains_concurrent_u64(bp(p), n, C.uint64_t(key), &o)
	return bool(o), int32(s)
}

func cSplitBlockAddConcurrent(b []byte, key unsafe.Pointer, kn int) (bool, int32) {
	p, n := img(b)
	var o C.bool
	s := C.sk_sbbf_add_concurrent(bp(p), n, bp(key), C.size_t(kn), &o)
	return bool(o), int32(s)
}

func cSplitBlockAddConcurrentU64(b []byte, key uint64) (bool, int32) {
	p, n := img(b)
	var o C.bool
	s := C.sk_sbbf_add_concurrent_u64(bp(p), n, C.uint64_t(key), &o)
	return bool(o), int32(s)
}

func cSplitBlockContainsConcurrent(b []byte, key unsafe.Pointer, kn int) (bool, int32) {
	p, n := img(b)
	var o C.bool
	s := C.sk_sbbf_contains_concurrent(bp(p), n, bp(key), C.size_t(kn), &o)
	return bool(o), int32(s)
}

func cSplitBlockContainsConcurrentU64(b []byte, key uint64) (bool, int32) {
	p, n := img(b)
	var o C.bool
	s := C.sk_sbbf_contains_concurrent_u64(bp(p), n, C.uint64_t(key), &o)
	return bool(o), int32(s)
}

func cHLLAddConcurrent(b []byte, key unsafe.Pointer, kn int) (bool, int32) {
	p, n := img(b)
	var o C.bool
	s := C.sk_hll_add_concurrent(bp(p), n, bp(key), C.size_t(kn), &o)
	return bool(o), int32(s)
}

func cHLLAddConcurrentU64(b []byte, key uint64) (bool, int32) {
	p, n := img(b)
	var o C.bool
	s := C.sk_hll_add_concurrent_u64(bp(p), n, C.uint64_t(key), &o)
	return bool(o), int32(s)
}

func cULLAddConcurrent(b []byte, key unsafe.Pointer, kn int) (bool, int32) {
	p, n := img(b)
	var o C.bool
	s := C.sk_ull_add_concurrent(bp(p), n, bp(key), C.size_t(kn), &o)
	return bool(o), int32(s)
}

func cULLAddConcurrentU64(b []byte, key uint64) (bool, int32) {
	p, n := img(b)
	var o C.bool
	s := C.sk_ull_add_concurrent_u64(bp(p), n, C.uint64_t(key), &o)
	return bool(o), int32(s)
}

// cFilterAddConcurrentPacked adds count = len(offs)-1 packed keys to a
// Bloom or split-block filter; out (nil, or count slots) receives was-new flags.
func cFilterAddConcurrentPacked(f Family, b, data []byte, offs []uint32, out []bool) int32 {
	p, n := img(b)
	d, dn, o, cnt := bytesPtr(data), C.size_t(len(data)), offsets(offs), C.size_t(len(offs)-1)
	switch f {
	case FamilyBloom:
		return int32(C.sketch_bloom_add_concurrent_packed(p, n, d, dn, o, cnt, bools(out)))
	case FamilySplitBlock:
		return int32(C.sketch_sbbf_add_concurrent_packed(p, n, d, dn, o, cnt, bools(out)))
	}
	return int32(StatusWrongFamily)
}

func cFilterAddConcurrentU64s(f Family, b []byte, keys []uint64, out []bool) int32 {
	p, n := img(b)
	k, cnt := u64s(keys), C.size_t(len(keys))
	switch f {
	case FamilyBloom:
		return int32(C.sketch_bloom_add_concurrent_u64_batch(p, n, k, cnt, bools(out)))
	case FamilySplitBlock:
		return int32(C.sketch_sbbf_add_concurrent_u64_batch(p, n, k, cnt, bools(out)))
	}
	return int32(StatusWrongFamily)
}

func cFilterContainsConcurrentPacked(f Family, b, data []byte, offs []uint32, out []bool) int32 {
	p, n := img(b)
	d, dn, o, cnt := bytesPtr(data), C.size_t(len(data)), offsets(offs), C.size_t(len(offs)-1)
	switch f {
	case FamilyBloom:
		return int32(C.sketch_bloom_contains_concurrent_packed(p, n, d, dn, o, cnt, bools(out)))
	case FamilySplitBlock:
		return int32(C.sketch_sbbf_contains_concurrent_packed(p, n, d, dn, o, cnt, bools(out)))
	}
	return int32(StatusWrongFamily)
}

func cFilterContainsConcurrentU64s(f Family, b []byte, keys []uint64, out []bool) int32 {
	p, n := img(b)
	k, cnt := u64s(keys), C.size_t(len(keys))
	switch f {
	case FamilyBloom:
		return int32(C.sketch_bloom_contains_concurrent_u64_batch(p, n, k, cnt, bools(out)))
	case FamilySplitBlock:
		return int32(C.sketch_sbbf_contains_concurrent_u64_batch(p, n, k, cnt, bools(out)))
	}
	return int32(StatusWrongFamily)
}

// cSetAddConcurrentPacked adds packed keys to an HLL or ULL sketch.
func cSetAddConcurrentPacked(f Family, b, data []byte, offs []uint32) int32 {
	p, n := img(b)
	d, dn, o, cnt := bytesPtr(data), C.size_t(len(data)), offsets(offs), C.size_t(len(offs)-1)
	switch f {
	case FamilyHLL:
		return int32(C.sketch_hll_add_concurrent_packed(p, n, d, dn, o, cnt))
	case FamilyULL:
		return int32(C.sketch_ull_add_concurrent_packed(p, n, d, dn, o, cnt))
	}
	return int32(StatusWrongFamily)
}

func cSetAddConcurrentU64s(f Family, b []byte, keys []uint64) int32 {
	p, n := img(b)
	k, cnt := u64s(keys), C.size_t(len(keys))
	switch f {
	case FamilyHLL:
		return int32(C.sketch_hll_add_concurrent_u64_batch(p, n, k, cnt))
	case FamilyULL:
		return int32(C.sketch_ull_add_concurrent_u64_batch(p, n, k, cnt))
	}
	return int32(StatusWrongFamily)
}

// cEstimateConcurrent is the register estimate of an HLL (Ertl) or ULL
// (FGRA) read with atomic loads.
func cEstimateConcurrent(f Family, b []byte) (float64, int32) {
	p, n := img(b)
	var o C.double
	var s C.sketch_status
	switch f {
	case FamilyHLL:
		s = C.sketch_hll_estimate_concurrent(p, n, &o)
	case FamilyULL:
		s = C.sketch_ull_estimate_concurrent(p, n, &o)
	default:
		return 0, int32(StatusWrongFamily)
	}
	return float64(o), int32(s)
}

// cHLLDensify converts a small-mode HLL to dense registers (exclusive access).
func cHLLDensify(b []byte) int32 {
	p, n := img(b)
	return int32(C.sketch_hll_densify(p, n))
}
