"""Seed 001 ("布隆过滤器与去重"), section 3.1: the article's BloomFilter usage
(expected_items=10000, false_positive_rate=0.01; add 1000 users; query;
measure the false-positive rate on 1000 absent users) with
sketches.compat.BloomFilter, plus section 8.2's "space is not enough"
check done by the filter itself.

    python examples/seed001_bloom_basics.py
"""

from sketches.compat import BloomFilter  # was: the article's hand-written class

bf = BloomFilter(capacity=10000, error_rate=0.01)
print(f"初始化: 预期元素=10000, 误判率=1.0%  位数组大小: {bf.num_bits / 8 / 1024:.2f} KB  哈希函数数量: {bf.num_slices}")

# 添加1000个元素
for i in range(1000):
    bf.add(f"user_{i}")

# 查询
print(f"存在的元素查询: {'user_500' in bf}")  # True
print(f"不存在的元素查询: {'user_9999' in bf}")  # usually False

# 统计误判率
false_positive = sum(f"user_{i}" in bf for i in range(1000, 2000))
print(f"误判数: {false_positive}/1000 = {false_positive / 10}%")

# 8.2 空间不够: the article rebuilds when count > 0.7 * capacity; the filter
# says when it is past its plan (more keys than planned, or the estimated
# false-positive rate above twice the planned one).
small = BloomFilter(capacity=1000, error_rate=0.01)
small.add_many([f"user_{i}" for i in range(1500)])
print(f"1500 keys in a filter planned for 1000: over_capacity={small.over_capacity}, "
      f"estimated FPR {small.filter.estimated_fpr * 100:.2f}%")
