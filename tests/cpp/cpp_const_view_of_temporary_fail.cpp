// Must NOT compile (tests/tests/cpp.rs): a read-only view made of a temporary
// owning sketch (`bloom_const_view v = bloom_filter::from_bytes(b);`, or an
// ULL's to_hll() held as an hll_const_view) points into a buffer freed at the
// end of the statement, as const_view() of a temporary would. Built with
// -DNAMED_OWNER (read-only views of named sketches and of views, and
// temporaries passed straight to merge, intersect and jaccard, which live
// until the call returns), it compiles.
#include "sketches.hpp"

#include <cstdint>
#include <vector>

bool probe(const std::vector<std::uint8_t> &bytes) {
    sketches::ull_sketch u = sketches::ull_sketch::create(10);
#ifdef NAMED_OWNER
    sketches::bloom_filter f = sketches::bloom_filter::from_bytes(bytes);
    sketches::bloom_const_view r = f;
    sketches::bloom_view w = f;
    sketches::bloom_const_view of_view = w;
    sketches::bloom_const_view of_temporary_view = sketches::bloom_view(f);
    f.merge(sketches::bloom_filter::from_bytes(bytes));
    f.intersect(f.clone());
    sketches::status s = f.try_merge(f.clone());
    sketches::cuckoo_filter c = sketches::cuckoo_filter::create(100, 0.01);
    c.merge(c.clone());
    sketches::minhash_sketch m = sketches::minhash_sketch::create(64);
    double j = m.jaccard(m.clone());
    sketches::hll_sketch h = u.to_hll();
    sketches::hll_const_view hv(h);
    h.merge(u.to_hll());
    return r.size() == of_view.size() && of_temporary_view.size() == hv.size() && s == sketches::status::ok && j >= 0;
#else
    sketches::bloom_const_view r = sketches::bloom_filter::from_bytes(bytes);
    sketches::hll_const_view hv(u.to_hll());
    return r.size() == hv.size();
#endif
}
