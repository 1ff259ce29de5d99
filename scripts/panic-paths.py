#!/usr/bin/env python3
"""Lists the exported C functions of libsketches.so that can reach a panic,
with one call chain each, from the disassembly of a release build.

Usage: scripts/panic-paths.py [path/to/libsketches.so]

Diagnostic companion of tests/tests/panic_free.rs (which proves the
absence by linking; this script says where a path is when that link fails).
Needs objdump (binutils) and c++filt.
"""
import collections
import re
import subprocess
import sys

lib = sys.argv[1] if len(sys.argv) > 1 else "target/release/libsketches.so"
asm = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-C", lib], capture_output=True, text=True, check=True).stdout
edges = collections.defaultdict(set)
current = None
header = re.compile(r"^[0-9a-f]+ <(.+)>:$")
call = re.compile(r"\s(?:call|jmp|j[a-z]+)\s+[0-9a-f]+ <([^>+]+)(?:\+0x[0-9a-f]+)?>")
for line in asm.splitlines():
    m = header.match(line)
    if m:
        current = m.group(1)
        continue
    if current is None:
        continue
    m = call.search(line)
    if m and m.group(1) != current:
        edges[current].add(m.group(1))


def is_panic(name):
    return bool(re.search(r"panic|rust_begin_unwind|core::option::unwrap_failed|core::result::unwrap_failed"
                          r"|slice_(start|end)_index|slice_index_order_fail|index_out_of_bounds|copy_from_slice"
                          r"|len_mismatch_fail|assert_failed|expect_failed", name))


exports = sorted(n for n in edges if n.startswith("sketch_"))
bad = 0
for e in exports:
    prev = {e: None}
    queue = collections.deque([e])
    hit = None
    while queue and hit is None:
        n = queue.popleft()
        for m in edges.get(n, ()):
            if m in prev:
                continue
            prev[m] = n
            if is_panic(m):
                hit = m
                break
            queue.append(m)
    if hit:
        bad += 1
        chain = []
        n = hit
        while n is not None:
            chain.append(n)
            n = prev[n]
        print(f"{e}:\n    " + "\n    <- ".join(chain))
print(f"{bad} of {len(exports)} exported functions can reach a panic", file=sys.stderr)
sys.exit(1 if bad else 0)
