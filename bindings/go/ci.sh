#!/usr/bin/env bash
# The Go binding's checks, run by `make go-test` (which builds libsketches
# and installs it under target/go-prefix first). Needs PKG_CONFIG_PATH
# pointing at that prefix's lib/pkgconfig.
#   GO_FUZZ_SECONDS   seconds per fuzz target (default 3; 0 skips fuzzing)
set -euo pipefail
cd "$(dirname "$0")"
: "${PKG_CONFIG_PATH:?point PKG_CONFIG_PATH at an installed libsketches (make go-test does)}"
fuzz_seconds="${GO_FUZZ_SECONDS:-3}"
prefix_lib="$(pkg-config --variable=libdir sketches)"
# Go's build cache does not see the C library's bytes: key the cgo builds
# on its hash so a rebuilt libsketches is always relinked.
export CGO_CPPFLAGS="${CGO_CPPFLAGS:-} -DSKETCHES_LIB_SHA=$(sha256sum "$prefix_lib/libsketches.a" | cut -c1-16)"
static=(-tags sketches_static)
last=$SECONDS
step() { printf '\n== go: %s  (previous step %ds)\n' "$*" "$((SECONDS - last))"; last=$SECONDS; }
start=$SECONDS

step "gofmt"
unformatted="$(gofmt -l .)"
[ -z "$unformatted" ] || { echo "gofmt needed: $unformatted" >&2; exit 1; }

step "go vet (static and shared link variants)"
go vet "${static[@]}" ./...
go vet ./...

# One run under both the race detector and GOEXPERIMENT=cgocheck2 (which
# checks every pointer write for Go pointers stored in C memory): each needs
# its own build of the standard library, so one combined run saves one.
step "GOEXPERIMENT=cgocheck2 go test -race (static link: no LD_LIBRARY_PATH needed)"
GOEXPERIMENT=cgocheck2 go test "${static[@]}" -race -count=1 ./...

step "default link (pkg-config sketches: libsketches.so.0 found through its SONAME)"
trap 'rm -f "$PWD/.shared.test" "$PWD/.static.test"' EXIT
go test -c -o "$PWD/.shared.test" .
go test -c "${static[@]}" -o "$PWD/.static.test" .
readelf -d .shared.test | grep -q 'NEEDED.*\[libsketches\.so\.0\]' || { echo "default build does not link libsketches.so.0" >&2; exit 1; }
if readelf -d .static.test | grep -q 'libsketches'; then echo "static build needs libsketches at run time" >&2; exit 1; fi
LD_LIBRARY_PATH="$prefix_lib" ./.shared.test -test.run 'TestGolden|TestErrors' -test.count=1

step "the stand, smoke-sized"
go run "${static[@]}" ./cmd/stand -keys 20000 > /dev/null

if [ "$fuzz_seconds" -gt 0 ]; then
    targets=(Bloom SplitBlock CountingBloom Cuckoo HLL ULL CountMin TopK MinHash BinaryFuse ELL)
    step "fuzzing UnmarshalBinary and Wrap: ${fuzz_seconds}s per family (${#targets[@]} targets)"
    # A bare "context deadline exceeded" with no failing input written is a
    # race in Go's fuzzing coordinator at the -fuzztime deadline (workers
    # starved on a loaded machine), not a finding: such a run is retried
    # once. A run that writes a failing input fails at once.
    inputs() { { ls "testdata/fuzz/Fuzz${1}Image" 2>/dev/null || true; } | wc -l; }
    fuzz_one() {
        go test "${static[@]}" -run '^$' -fuzz "^Fuzz${1}Image\$" -fuzztime "${fuzz_seconds}s" \
            -fuzzminimizetime 100x . > "$2" 2>&1
    }
    for t in "${targets[@]}"; do
        log="$(mktemp)"
        before="$(inputs "$t")"
        if ! fuzz_one "$t" "$log"; then
            if grep -q 'context deadline exceeded' "$log" && [ "$(inputs "$t")" = "$before" ]; then
                echo "  Fuzz${t}Image: the fuzzing coordinator's deadline race, no failing input; retrying once"
                fuzz_one "$t" "$log" || { cat "$log"; echo "fuzz target Fuzz${t}Image failed twice" >&2; rm -f "$log"; exit 1; }
            else
                cat "$log"
                echo "fuzz target Fuzz${t}Image failed (the failing input is under testdata/fuzz/)" >&2
                rm -f "$log"
                exit 1
            fi
        fi
        printf '  Fuzz%-20s %s\n' "${t}Image" "$(grep -o 'execs: [0-9]*' "$log" | tail -1)"
        rm -f "$log"
    done
fi
printf '\n== go: all checks passed in %ds\n' "$((SECONDS - start))"
