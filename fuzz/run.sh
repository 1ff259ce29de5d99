#!/usr/bin/env bash
# Coverage-guided fuzzing (libFuzzer) of every image import path and of the
# operations on imported and raw images, through the C ABI, on stable Rust:
# the code is instrumented with LLVM's SanitizerCoverage passes (as cargo-fuzz
# does), with debug assertions and overflow checks on, so an arithmetic
# overflow, a panic caught at the boundary or a broken invariant is a crash.
# (No AddressSanitizer: it needs a nightly compiler; the core has no unsafe
# code outside its SIMD module, and the C tests run the ABI under ASan.)
#
# Two targets share the time: `images` (untrusted image bytes through the C
# ABI; seeds: the golden images of tests/golden, each prefixed with its
# family selector byte) and `ops` (operation sequences checked against exact
# models; seeds: one per family).
#
# Usage: fuzz/run.sh [seconds]     (default: $FUZZ_SECONDS or 120; split
# between the two targets); fuzz/run.sh --clippy lints the targets instead. A crash leaves its input in
# fuzz/target/artifacts/ and fails the run; replay it with
# ./fuzz/target/<host>/release/<target> <file>.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-${FUZZ_SECONDS:-120}}"
host="$(rustc -vV | sed -n 's/^host: //p')"
# An explicit --target keeps these flags away from build scripts.
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions -Coverflow-checks"
if [ "$seconds" = "--clippy" ]; then
    # `make fuzz-lint`: clippy with the build's flags and target, so the build
    # after it reuses what clippy built (libFuzzer's C++ sources compile once)
    # and the lints see the code as the fuzzers compile it (`--cfg fuzzing`).
    exec cargo clippy --locked --release --target "$host" --bins -- -D warnings
fi
cargo build --locked --release --target "$host" --bins

seeds=target/seeds
corpus=target/corpus
mkdir -p "$seeds" "$corpus" target/ops-seeds target/ops-corpus target/artifacts
selector() {
    case "$1" in
        bloom_*) echo 0 ;; sbbf_*) echo 1 ;; counting_*) echo 2 ;; cuckoo_*) echo 3 ;;
        hll_*) echo 4 ;; ull_*) echo 5 ;; countmin_*) echo 6 ;; topk_*) echo 7 ;; minhash_*) echo 8 ;;
        fuse*) echo 9 ;; ell_*) echo 10 ;;
        *) echo "unknown golden image $1" >&2; exit 1 ;;
    esac
}
for img in ../tests/golden/*.img; do
    name="$(basename "$img")"
    family="$(selector "$name")"
    { printf "\\$(printf '%03o' "$family")"; cat "$img"; } > "$seeds/$name"
    { printf "\\$(printf '%03o' "$((family + 128))")"; cat "$img"; } > "$seeds/resealed-$name"
done
# ops seeds: every family, a mid-size parameter, operations cut from a golden image.
for family in 0 1 2 3 4 5 6 7 8 9 10; do
    { printf "\\$(printf '%03o' "$family")\\040"; head -c 600 ../tests/golden/countmin_v1.img | tail -c 400; } \
        > "target/ops-seeds/family-$family"
done
half=$(( (seconds + 1) / 2 ))
run() {
    "./target/$host/release/$1" -max_total_time="$half" -timeout=20 -rss_limit_mb=4096 \
        -print_final_stats=1 -artifact_prefix=target/artifacts/ "${@:2}"
}
run images -max_len=300000 "$corpus" "$seeds"
run ops -max_len=4100 target/ops-corpus target/ops-seeds
