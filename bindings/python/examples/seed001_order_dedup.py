"""Seed 001, section 4 ("实战：订单去重"), method 2: drop repeated orders with
a Bloom filter -- ``add`` answers "seen before?" and inserts in one call --
then exercise 1 (a counting Bloom filter that supports deletion) and
exercise 2 (crawler URL dedup) with the library's classes, without Spark.

    python examples/seed001_order_dedup.py
"""

import os

import sketches
from sketches.compat import BloomFilter

orders = [
    ("order_001", "user_1", 100, "2024-01-01 10:00:00"),
    ("order_002", "user_2", 200, "2024-01-01 10:01:00"),
    ("order_001", "user_1", 100, "2024-01-01 10:02:00"),  # 重复
    ("order_003", "user_3", 150, "2024-01-01 10:03:00"),
    ("order_002", "user_2", 200, "2024-01-01 10:04:00"),  # 重复
    ("order_004", "user_4", 300, "2024-01-01 10:05:00"),
    ("order_005", "user_5", 180, "2024-01-01 10:06:00"),
]

bf = BloomFilter(capacity=100000, error_rate=0.001)
# add() returns True when the order was (probably) already seen
result = [o for o in orders if not bf.add(o[0])]
for o in result:
    print(o)
print(f"布隆过滤后数量: {len(result)}")

# 练习1: Counting Bloom Filter with deletion
cbf = sketches.CountingBloomFilter(100000, 0.01)
cbf.add("order_001")
cbf.add("order_002")
cbf.remove("order_001")
print(f"after remove: order_001 in filter: {'order_001' in cbf}, order_002: {'order_002' in cbf}")

# 练习2: URL dedup for a crawler, one batch call per page of links
n = int(1_000_000 * float(os.environ.get("SKETCHES_EXAMPLE_SCALE", "1")))
seen = sketches.BloomFilter(n, 0.001)
links = [f"https://example.com/page/{i % (n // 2)}" for i in range(n)]
new = seen.add_many(links)
print(f"{n} links, {int(new.sum())} new to crawl")
