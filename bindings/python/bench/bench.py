"""Side-by-side benchmark of the Python binding (one run; `make python-bench`).

The stand workload: 1,000,000 "present-<i>" keys into a Bloom filter planned
for 1,000,000 at 1%, queried with the same keys and 1,000,000 absent ones;
against pybloom-live, rbloom and fastbloom-rs, with a Python set for memory.
HyperLogLog batch update against Apache DataSketches' HLL (and CPC for
reference) at equal memory, with the error over several trials; then
ConcurrentSketch from 1 and 2 threads against the ordinary sketch. Prints
per-key throughput (million keys per second), ratios and bytes.
"""

from __future__ import annotations

import gc
import statistics
import sys
import threading
import time

import numpy as np
import pyarrow as pa

import sketches

N = 1_000_000
FPR = 0.01
PYBLOOM_N = 100_000  # pybloom-live hashes with SHA/xxh128 in Python: per-key rate from 100k


def timed(fn, repeat: int = 3, fresh=None) -> float:
    """Best wall time of `repeat` runs of fn() (seconds). With `fresh`, each
    run gets fn(fresh()) with the argument built outside the timing: lists
    of new str objects, whose hash() is not cached yet (rbloom hashes with
    Python's hash(), which a str caches after its first use)."""
    best = float("inf")
    for _ in range(repeat):
        arg = fresh() if fresh is not None else None
        gc.collect()
        t0 = time.perf_counter()
        fn(arg) if fresh is not None else fn()
        best = min(best, time.perf_counter() - t0)
        del arg
    return best


def present_list() -> list:
    return [f"present-{i}" for i in range(N)]


def mkeys(n: int) -> float:
    return n / 1e6


rows: list[tuple[str, str, float]] = []


def report(group: str, name: str, seconds: float, n: int = N) -> float:
    rate = mkeys(n) / seconds
    rows.append((group, name, rate))
    print(f"  {group:<34} {name:<44} {rate:8.2f} Mkeys/s  ({seconds * 1e9 / n:7.1f} ns/key)")
    return rate


def bloom() -> dict:
    present = [f"present-{i}" for i in range(N)]
    absent = [f"absent-{i}" for i in range(N)]
    present_arrow = pa.array(present)
    absent_arrow = pa.array(absent)
    ints = np.arange(N, dtype=np.uint64)
    ints_absent = np.arange(N, 2 * N, dtype=np.uint64)
    out: dict = {}

    print("\nBloom filter, 1,000,000 keys at 1%")
    # --- sketches
    def fresh():
        return sketches.BloomFilter(N, FPR)

    f = fresh()
    out["ours_add_list"] = report("add, list of str (batch)", "sketches.BloomFilter.add_many",
                                  timed(lambda ks: fresh().add_many(ks), fresh=present_list))
    out["ours_add_arrow"] = report("add, pyarrow string (batch)", "sketches.BloomFilter.add_many",
                                   timed(lambda: fresh().add_many(present_arrow)))
    out["ours_add_np"] = report("add, NumPy uint64 (batch)", "sketches.BloomFilter.add_many",
                                timed(lambda: fresh().add_many(ints)))
    f.add_many(present_arrow)
    out["ours_contains_list"] = report("contains, list of str (batch)", "sketches.BloomFilter.contains_many",
                                       timed(lambda ks: f.contains_many(ks), fresh=present_list))
    out["ours_contains_arrow"] = report("contains, pyarrow string (batch)", "sketches.BloomFilter.contains_many",
                                        timed(lambda: f.contains_many(present_arrow)))
    out["ours_fpr"] = float(f.contains_many(absent_arrow).mean())
    g = fresh()
    g.add_many(ints)
    out["ours_contains_np"] = report("contains, NumPy uint64 (batch)", "sketches.BloomFilter.contains_many",
                                     timed(lambda: g.contains_many(ints_absent)))

    def single_add(ks):
        h = fresh()
        add = h.add
        for k in ks:
            add(k)

    out["ours_add_single"] = report("add, one call per key", "sketches.BloomFilter.add",
                                    timed(single_add, 2, present_list))
    out["ours_contains_single"] = report("contains, one call per key", "k in sketches.BloomFilter",
                                         timed(lambda ks: [k in f for k in ks], 2, present_list))
    sb = sketches.SplitBlockBloomFilter(N, FPR)
    out["sbbf_add_list"] = report("add, list of str (batch)", "sketches.SplitBlockBloomFilter.add_many",
                                  timed(lambda ks: sketches.SplitBlockBloomFilter(N, FPR).add_many(ks),
                                        fresh=present_list))
    out["sbbf_add_arrow"] = report("add, pyarrow string (batch)", "sketches.SplitBlockBloomFilter.add_many",
           timed(lambda: sketches.SplitBlockBloomFilter(N, FPR).add_many(present_arrow)))
    sb.add_many(present_arrow)
    out["sbbf_contains_list"] = report("contains, list of str (batch)",
                                       "sketches.SplitBlockBloomFilter.contains_many",
                                       timed(lambda ks: sb.contains_many(ks), fresh=present_list))
    out["sbbf_contains_arrow"] = report("contains, pyarrow string (batch)", "sketches.SplitBlockBloomFilter.contains_many",
           timed(lambda: sb.contains_many(present_arrow)))
    out["sbbf_fpr"] = float(sb.contains_many(absent_arrow).mean())
    out["ours_bytes"] = f.nbytes
    out["sbbf_bytes"] = sb.nbytes

    # GIL: two threads of batch queries against twice one.
    one = timed(lambda: f.contains_many(present_arrow))

    def two_threads():
        ts = [threading.Thread(target=f.contains_many, args=(present_arrow,)) for _ in range(2)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()

    two = timed(two_threads)
    out["threads_speedup"] = 2 * one / two

    # Direct evidence that the GIL is released: a pure-Python thread keeps
    # counting while one batch call runs (it could not if the call held the GIL).
    ticks = [0]
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            ticks[0] += 1

    spinner = threading.Thread(target=spin)
    spinner.start()
    time.sleep(0.05)
    before = ticks[0]
    big = pa.chunked_array([present_arrow] * 4)
    t0 = time.perf_counter()
    f.contains_many(big)
    call = time.perf_counter() - t0
    during = ticks[0] - before
    stop.set()
    spinner.join()
    out["gil_ticks"] = during
    print(f"  a Python thread counted to {during:,} during one {call * 1e3:.0f} ms contains_many call (GIL released)")
    print(f"  two threads of contains_many: {two * 1e3:.1f} ms vs one {one * 1e3:.1f} ms: "
          f"{out['threads_speedup']:.2f}x the throughput of one thread (2 cores)")

    # --- rbloom
    import rbloom

    out["rbloom_add_list"] = report("add, list of str (batch)", "rbloom.Bloom.update",
                                    timed(lambda ks: rbloom.Bloom(N, FPR).update(ks), fresh=present_list))

    def rb_single(ks):
        r = rbloom.Bloom(N, FPR)
        add = r.add
        for k in ks:
            add(k)

    out["rbloom_add_single"] = report("add, one call per key", "rbloom.Bloom.add", timed(rb_single, 2, present_list))
    r = rbloom.Bloom(N, FPR)
    r.update(present)
    out["rbloom_contains_single"] = report("contains, one call per key", "k in rbloom.Bloom",
                                           timed(lambda ks: [k in r for k in ks], 2, present_list))
    out["rbloom_add_int"] = report("add, list of int (batch)", "rbloom.Bloom.update",
                                   timed(lambda: rbloom.Bloom(N, FPR).update(ints.tolist())))
    out["rbloom_fpr"] = sum(k in r for k in absent) / N
    out["rbloom_bytes"] = r.size_in_bits // 8

    # --- fastbloom-rs
    import fastbloom_rs

    def fb_fresh():
        return fastbloom_rs.FilterBuilder(N, FPR).build_bloom_filter()

    out["fastbloom_add_list"] = report("add, list of str (batch)", "fastbloom_rs add_str_batch",
                                       timed(lambda ks: fb_fresh().add_str_batch(ks), fresh=present_list))
    fb = fb_fresh()
    fb.add_str_batch(present)
    out["fastbloom_contains_list"] = report("contains, list of str (batch)", "fastbloom_rs contains_str_batch",
                                            timed(lambda ks: fb.contains_str_batch(ks), fresh=present_list))

    def fb_single():
        h = fb_fresh()
        add = h.add_str
        for k in present:
            add(k)

    out["fastbloom_add_single"] = report("add, one call per key", "fastbloom_rs add_str", timed(fb_single, 1))
    out["fastbloom_fpr"] = sum(fb.contains_str_batch(absent)) / N
    out["fastbloom_bytes"] = len(fb.get_bytes())

    # --- pybloom-live (100k keys: it hashes in Python)
    import pybloom_live

    sub = present[:PYBLOOM_N]

    def pb_add():
        p = pybloom_live.BloomFilter(N, FPR)
        add = p.add
        for k in sub:
            add(k)

    out["pybloom_add_single"] = report("add, one call per key", "pybloom_live.BloomFilter.add",
                                       timed(pb_add, 1), PYBLOOM_N)
    p = pybloom_live.BloomFilter(N, FPR)
    for k in sub:
        p.add(k)
    out["pybloom_contains_single"] = report("contains, one call per key", "k in pybloom_live.BloomFilter",
                                            timed(lambda: [k in p for k in sub], 1), PYBLOOM_N)
    out["pybloom_bytes"] = p.num_bits // 8

    # --- Python set (memory)
    s = set(present)
    out["set_bytes"] = sys.getsizeof(s) + sum(sys.getsizeof(k) for k in present)
    out["set_table_bytes"] = sys.getsizeof(s)
    return out


def cardinality() -> dict:
    import datasketches as ds

    out: dict = {}
    print("\nHyperLogLog, 1,000,000 distinct \"present-<i>\" keys, p = lg_k = 14")
    present = [f"present-{i}" for i in range(N)]
    arrow = pa.array(present)

    def ours():
        h = sketches.HyperLogLog(14)
        h.add_many(present)
        return h

    out["hll_list"] = report("HLL update, list of str (batch)", "sketches.HyperLogLog.add_many",
                             timed(lambda ks: sketches.HyperLogLog(14).add_many(ks), fresh=present_list))
    out["hll_arrow"] = report("HLL update, pyarrow string (batch)", "sketches.HyperLogLog.add_many",
                              timed(lambda: sketches.HyperLogLog(14).add_many(arrow)))
    out["ull_list"] = report("ULL update, list of str (batch)", "sketches.UltraLogLog(13).add_many",
                             timed(lambda: sketches.UltraLogLog(13).add_many(present)))

    def dsk(ks=present):
        h = ds.hll_sketch(14, ds.tgt_hll_type.HLL_6)
        upd = h.update
        for k in ks:
            upd(k)
        return h

    out["ds_hll"] = report("HLL update (one call per key)", "datasketches.hll_sketch(14, HLL_6).update",
                           timed(dsk, 2, present_list))

    def cpc():
        c = ds.cpc_sketch(12)
        upd = c.update
        for k in present:
            upd(k)
        return c

    out["ds_cpc"] = report("CPC update (one call per key)", "datasketches.cpc_sketch(12).update", timed(cpc, 1))

    # Error over trials at equal memory, each trial a different key prefix.
    trials, n = 20, 100_000
    errs: dict = {"ours HLL p=14": [], "ours ULL p=13": [], "datasketches HLL_6 lg_k=14": [],
                  "datasketches CPC lg_k=12": []}
    sizes: dict = {}
    for t in range(trials):
        keys = [f"t{t}-present-{i}" for i in range(n)]
        h = sketches.HyperLogLog(14)
        h.add_many(keys)
        u = sketches.UltraLogLog(13)
        u.add_many(keys)
        d = ds.hll_sketch(14, ds.tgt_hll_type.HLL_6)
        c = ds.cpc_sketch(12)
        for k in keys:
            d.update(k)
            c.update(k)
        errs["ours HLL p=14"].append(h.estimate() / n - 1)
        errs["ours ULL p=13"].append(u.estimate() / n - 1)
        errs["datasketches HLL_6 lg_k=14"].append(d.get_estimate() / n - 1)
        errs["datasketches CPC lg_k=12"].append(c.get_estimate() / n - 1)
        sizes = {"ours HLL p=14": len(bytes(h)), "ours ULL p=13": len(bytes(u)),
                 "datasketches HLL_6 lg_k=14": len(d.serialize_compact()),
                 "datasketches CPC lg_k=12": len(c.serialize())}
    print(f"\n  relative error over {trials} trials of {n:,} distinct keys (RMSE), serialized bytes:")
    for name, e in errs.items():
        rmse = (sum(x * x for x in e) / len(e)) ** 0.5
        out[f"rmse {name}"] = rmse
        out[f"bytes {name}"] = sizes[name]
        print(f"    {name:<28} RMSE {rmse * 100:5.2f}%  mean {statistics.mean(e) * 100:+5.2f}%  {sizes[name]:,} bytes")
    one = ours()
    out["hll_1m_error"] = one.estimate() / N - 1
    out["ds_1m_error"] = dsk().get_estimate() / N - 1
    return out


CONCURRENT_N = 8_000_000


def concurrent() -> None:
    """ConcurrentSketch against the ordinary sketch: 8M scrambled u64 keys
    through add_many, the ordinary sketch in one thread, the concurrent copy
    with the keys split over 1 and 2 threads (best of 5 each)."""
    keys = np.arange(CONCURRENT_N, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    families = [
        ("BloomFilter 8M at 1%", lambda: sketches.BloomFilter(CONCURRENT_N, FPR)),
        ("SplitBlockBloomFilter 8M at 1%", lambda: sketches.SplitBlockBloomFilter(CONCURRENT_N, FPR)),
        ("HyperLogLog p = 14", lambda: sketches.HyperLogLog(14)),
        ("UltraLogLog p = 14", lambda: sketches.UltraLogLog(14)),
    ]
    print(f"\nConcurrent adds, {CONCURRENT_N:,} u64 keys in add_many (ConcurrentSketch, GIL released)")

    def threads_add(c, parts) -> None:
        workers = [threading.Thread(target=c.add_many, args=(p,)) for p in parts]
        for w in workers:
            w.start()
        for w in workers:
            w.join()

    for name, make in families:
        ordinary = timed(lambda s: s.add_many(keys), repeat=5, fresh=make)
        report(name, "ordinary add_many, 1 thread", ordinary, CONCURRENT_N)
        for n in (1, 2):
            parts = np.array_split(keys, n)
            t = timed(lambda c, parts=parts: threads_add(c, parts), repeat=5, fresh=lambda: make().concurrent())
            report(name, f"ConcurrentSketch, {n} thread{'s' if n > 1 else ''}", t, CONCURRENT_N)


def main() -> None:
    print(f"sketches {sketches.__version__} bench, Python {sys.version.split()[0]}, NumPy {np.__version__}, "
          f"pyarrow {pa.__version__}")
    b = bloom()
    c = cardinality()
    concurrent()
    print("\nRatios (higher is better for sketches):")
    lines = [
        ("batch add (pyarrow) vs rbloom add per key", b["ours_add_arrow"] / b["rbloom_add_single"], 5),
        ("batch add (list of str) vs rbloom add per key", b["ours_add_list"] / b["rbloom_add_single"], 5),
        ("batch add (NumPy) vs rbloom add per key", b["ours_add_np"] / b["rbloom_add_single"], 5),
        ("batch contains (pyarrow) vs rbloom `in` per key", b["ours_contains_arrow"] / b["rbloom_contains_single"], 5),
        ("batch contains (list of str) vs rbloom `in` per key",
         b["ours_contains_list"] / b["rbloom_contains_single"], 5),
        ("batch add (pyarrow) vs pybloom-live add per key", b["ours_add_arrow"] / b["pybloom_add_single"], 50),
        ("batch contains (pyarrow) vs pybloom-live `in` per key",
         b["ours_contains_arrow"] / b["pybloom_contains_single"], 50),
        ("list-of-str batch add vs rbloom update(list)", b["ours_add_list"] / b["rbloom_add_list"], 2),
        ("split-block: list-of-str batch add vs rbloom update(list)", b["sbbf_add_list"] / b["rbloom_add_list"], 2),
        ("split-block: batch add (pyarrow) vs rbloom add per key", b["sbbf_add_arrow"] / b["rbloom_add_single"], 5),
        ("split-block: batch contains (pyarrow) vs rbloom `in` per key",
         b["sbbf_contains_arrow"] / b["rbloom_contains_single"], 5),
        ("split-block: batch contains (list of str) vs rbloom `in` per key",
         b["sbbf_contains_list"] / b["rbloom_contains_single"], 5),
        ("list-of-str batch add vs fastbloom-rs add_str_batch", b["ours_add_list"] / b["fastbloom_add_list"], None),
        ("list-of-str batch contains vs fastbloom-rs contains_str_batch",
         b["ours_contains_list"] / b["fastbloom_contains_list"], None),
        ("add per key vs rbloom add per key", b["ours_add_single"] / b["rbloom_add_single"], None),
        ("add per key vs pybloom-live add per key", b["ours_add_single"] / b["pybloom_add_single"], None),
        ("HLL batch update (list of str) vs DataSketches HLL", c["hll_list"] / c["ds_hll"], 3),
        ("HLL batch update (pyarrow) vs DataSketches HLL", c["hll_arrow"] / c["ds_hll"], 3),
    ]
    for name, ratio, target in lines:
        t = f"(target {target}x: {'met' if ratio >= target else 'NOT met'})" if target else ""
        print(f"  {name:<64} {ratio:7.2f}x {t}")
    print("\nMemory for 1,000,000 keys at 1% (bytes), measured false-positive rate on 1,000,000 absent keys:")
    print(f"  sketches.BloomFilter           {b['ours_bytes']:>12,}  FPR {b['ours_fpr'] * 100:.3f}%")
    print(f"  sketches.SplitBlockBloomFilter {b['sbbf_bytes']:>12,}  FPR {b['sbbf_fpr'] * 100:.3f}%")
    print(f"  rbloom.Bloom                   {b['rbloom_bytes']:>12,}  FPR {b['rbloom_fpr'] * 100:.3f}%")
    print(f"  fastbloom_rs.BloomFilter       {b['fastbloom_bytes']:>12,}  FPR {b['fastbloom_fpr'] * 100:.3f}%")
    print(f"  pybloom_live.BloomFilter       {b['pybloom_bytes']:>12,}")
    print(f"  Python set of the strings      {b['set_bytes']:>12,}  (table {b['set_table_bytes']:,} + str objects)")
    print(f"\nHLL at 1M: sketches {c['hll_1m_error'] * 100:+.3f}%, DataSketches {c['ds_1m_error'] * 100:+.3f}%")
    print(f"GIL released: two threads of batch queries ran at {b['threads_speedup']:.2f}x one thread's throughput; "
          f"a Python thread counted to {b['gil_ticks']:,} during one batch call")


if __name__ == "__main__":
    main()
