#!/usr/bin/env python3
"""Worst-case stack use of every exported function of libsketches.so.

Reads the `.stack_sizes` section (each function's own frame, emitted by a
nightly rustc with `-Z emit-stack-sizes`) and the call graph from the
disassembly, and prints, per exported `sketch_*` function, the deepest call
chain: the sum of the frames along it plus 8 bytes of return address per
call. Calls into the C library (memcpy, memset, memmove, bcmp, memcmp, ...)
are counted with a fixed allowance (LIBC_ALLOWANCE). An indirect call or a
cycle (recursion) in a function's graph makes its bound unknown: both are
reported as errors.

Usage: scripts/stack-sizes.py LIB [--limit BYTES] [--families]
Exit status 1 when a function exceeds the limit or has no bound.
Needs readelf and objdump (binutils).
"""
import argparse
import collections
import re
import subprocess
import sys

# glibc's x86-64 string functions (memcpy, memset, memmove, bcmp) are leaf
# functions that push nothing (checked with objdump on the __memmove_avx_*,
# __memset_avx2_* and __memcmp_avx2_* variants); 64 bytes is a margin.
LIBC_ALLOWANCE = 64

parser = argparse.ArgumentParser()
parser.add_argument("lib")
parser.add_argument("--limit", type=int, default=1024)
parser.add_argument("--families", action="store_true", help="also print the worst function per family")
args = parser.parse_args()


def section_bytes(lib, name):
    out = subprocess.run(["readelf", "-W", "-S", lib], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        m = re.search(r"\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)", line)
        if m and m.group(1) == name:
            offset, size = int(m.group(3), 16), int(m.group(4), 16)
            with open(lib, "rb") as f:
                f.seek(offset)
                return f.read(size)
    sys.exit(f"{lib} has no {name} section: build with RUSTFLAGS='-Z emit-stack-sizes' (nightly)")


def uleb(data, i):
    value, shift = 0, 0
    while True:
        b = data[i]
        i += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return value, i


raw = section_bytes(args.lib, ".stack_sizes")
frame_at = {}
i = 0
while i + 8 <= len(raw):
    addr = int.from_bytes(raw[i:i + 8], "little")
    size, i = uleb(raw, i + 8)
    frame_at[addr] = size

asm = subprocess.run(["objdump", "-d", "--no-show-raw-insn", args.lib], capture_output=True, text=True,
                     check=True).stdout
header = re.compile(r"^([0-9a-f]+) <(.+)>:$")
direct = re.compile(r"\s(call|jmp)\s+([0-9a-f]+) <([^>]+)>")
# Indirect calls (a jmp through a register or memory is a switch's jump table).
indirect = re.compile(r"\scall\s+\*")
calls = collections.defaultdict(set)
# Registers loaded with a C library function's GOT entry (call *%reg later).
got_load = re.compile(r"\smov\s+0x[0-9a-f]+\(%rip\),%(\w+)\s+#\s+[0-9a-f]+ <([A-Za-z_][A-Za-z0-9_]*)@")
reg_call = re.compile(r"\scall\s+\*%(\w+)\s*$")
loaded = {}
frames = {}
indirect_in = set()
starts = {}
current = None
for line in asm.splitlines():
    m = header.match(line)
    if m:
        current = m.group(2)
        starts[current] = int(m.group(1), 16)
        frames[current] = frame_at.get(int(m.group(1), 16))
        continue
    if current is None:
        continue
    m = got_load.search(line)
    if m:
        loaded[(current, m.group(1))] = m.group(2)
    m = reg_call.search(line)
    if m and (current, m.group(1)) in loaded:
        calls[current].add(loaded[(current, m.group(1))] + "@plt")
        continue
    m = direct.search(line)
    if m:
        target = m.group(3)
        base = re.sub(r"\+0x[0-9a-f]+$", "", target)
        if base != current and (m.group(1) == "call" or "+" not in target):
            calls[current].add(base)
        continue
    if indirect.search(line):
        # A call through the GOT to the C library (memcpy@GLIBC_2.14) is known.
        got = re.search(r"#\s+[0-9a-f]+ <([A-Za-z_][A-Za-z0-9_]*)@", line)
        if got:
            calls[current].add(got.group(1) + "@plt")
        else:
            indirect_in.add(current)


def demangle(names):
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, check=True).stdout
    return dict(zip(names, out.splitlines()))


def is_libc(name):
    return name.endswith("@plt") or name in ("memcpy", "memset", "memmove", "bcmp", "memcmp")


memo = {}


def worst(fn, stack=()):
    """(bytes, chain) of the deepest path from fn, or raises on recursion/indirect/unknown."""
    if fn in memo:
        return memo[fn]
    if fn in stack:
        raise ValueError(f"recursion through {fn}")
    if fn in indirect_in:
        raise ValueError(f"indirect call in {fn}")
    if is_libc(fn):
        return LIBC_ALLOWANCE, [fn]
    own = frames.get(fn)
    if own is None:
        raise ValueError(f"no stack size for {fn}")
    best, chain = 0, []
    for callee in calls.get(fn, ()):
        depth, sub = worst(callee, stack + (fn,))
        if depth + 8 > best:
            best, chain = depth + 8, sub
    memo[fn] = (own + best, [fn] + chain)
    return memo[fn]


exports = sorted(f for f in frames if f.startswith("sketch_"))
bad = 0
per_family = {}
rows = []
for e in exports:
    try:
        depth, chain = worst(e)
    except ValueError as err:
        print(f"{e}: NO BOUND ({demangle([str(err)]).get(str(err), err)})")
        bad += 1
        continue
    rows.append((depth, e, chain))
    family = e.split("_")[1]
    if depth > per_family.get(family, (0, ""))[0]:
        per_family[family] = (depth, e)
    if depth > args.limit:
        bad += 1
short = demangle(sorted({c for _, _, chain in rows for c in chain}))
for depth, e, chain in sorted(rows, reverse=True):
    mark = "  OVER" if depth > args.limit else ""
    via = " -> ".join(short.get(c, c)[:70] for c in chain[1:4]) if len(chain) > 1 else "-"
    print(f"{depth:6d}  {e}{mark}   via {via}")
if args.families:
    print("\nworst per family:")
    for family, (depth, e) in sorted(per_family.items()):
        print(f"  {family:10s} {depth:6d}  {e}")
print(f"{len(exports)} exported functions, {bad} over {args.limit} bytes or unbounded", file=sys.stderr)
sys.exit(1 if bad else 0)
