"""Seed 000 ("Дедупликация"), section "Замеры": a set against a Bloom filter
on 1,000,000 strings -- the article's code with one changed import
(pybloom_live -> sketches.compat), then the same with one batch call.

    python examples/seed000_set_vs_bloom.py   (SKETCHES_EXAMPLE_SCALE=0.1 for 100k)
"""

import os
import sys
import time

from sketches.compat import BloomFilter  # was: from pybloom_live import BloomFilter

n = int(1_000_000 * float(os.environ.get("SKETCHES_EXAMPLE_SCALE", "1")))

# set
s = set()
t0 = time.time()
for i in range(n):
    s.add(f"id_{i}")
t1 = time.time()
set_bytes = sys.getsizeof(s) + sum(sys.getsizeof(x) for x in s)
print(f"set: {t1-t0:.2f} s, memory ~{set_bytes / 1024 / 1024:.0f} MB (table + strings)")

# Bloom, one key per call, as in the article
bf = BloomFilter(capacity=n, error_rate=0.01)
t0 = time.time()
for i in range(n):
    bf.add(f"id_{i}")
t1 = time.time()
print(f"bloom: {t1-t0:.2f} s, memory {bf.filter.nbytes / 1024 / 1024:.2f} MB (exact image size)")

# Bloom, one batch call (the GIL is released while it runs)
keys = [f"id_{i}" for i in range(n)]
bf2 = BloomFilter(capacity=n, error_rate=0.01)
t0 = time.time()
bf2.add_many(keys)
t1 = time.time()
print(f"bloom add_many: {t1-t0:.2f} s")

absent = bf2.contains_many([f"other_{i}" for i in range(n)])
print(f"false positives on {n} absent keys: {absent.mean() * 100:.2f}% (planned 1%)")
print(f"over capacity: {bf2.over_capacity}")
