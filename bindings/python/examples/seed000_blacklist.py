"""Seed 000, "Попробуй сам": a Bloom filter of 10 million blacklisted IPs at
0.1% in front of an expensive exact check -- the article's code with one
changed import, the fill done with one batch call.

    python examples/seed000_blacklist.py   (SKETCHES_EXAMPLE_SCALE=0.01 for 100k)
"""

import os

from sketches.compat import BloomFilter  # was: from pybloom_live import BloomFilter

n = int(10_000_000 * float(os.environ.get("SKETCHES_EXAMPLE_SCALE", "1")))

# imagine: blacklist 10 million IPs
blacklisted = BloomFilter(capacity=n, error_rate=0.001)

# filled once (the article loops over add(); one add_many call does the same)
blacklisted.add_many([f"10.{i // 65536 % 256}.{i // 256 % 256}.{i % 256}" for i in range(n)])

db_checks = 0


def slow_db_check(ip):
    global db_checks
    db_checks += 1
    return False


def is_safe(ip):
    if ip in blacklisted:
        # maybe blacklisted: do the expensive check in the database
        return slow_db_check(ip)
    # certainly not blacklisted: pass quickly
    return True


safe = sum(is_safe(f"192.168.{i // 256 % 256}.{i % 256}") for i in range(100_000))
print(f"{safe} of 100000 clean IPs passed without a database check; {db_checks} went to the database")
print(f"filter: {blacklisted.filter.nbytes / 1024 / 1024:.1f} MB for {n} IPs, k={blacklisted.num_slices}")
