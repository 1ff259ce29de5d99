#!/usr/bin/env bash
# Installs what the test suite needs beyond Rust and a C compiler, if missing:
#   - cbindgen at the pinned version (the header is generated with it and diffed)
#   - valgrind (the C ABI test also runs under it)
#   - cmake and pkg-config (the install test builds consumers with both)
#   - a nightly Rust toolchain (the stack-bound test reads -Z emit-stack-sizes)
#     with Miri and the standard library's sources (`make miri`)
#   - the thumbv7em-none-eabihf and thumbv6m-none-eabi Rust targets and
#     Debian's gcc-arm-none-eabi (tests/tests/embedded.rs builds the C ABI
#     for a Cortex-M4F and a Cortex-M0+)
# Idempotent; used by `make test` and .ci/run.
set -euo pipefail
CBINDGEN_VERSION=0.29.4

if [ "$(cbindgen --version 2>/dev/null)" != "cbindgen ${CBINDGEN_VERSION}" ]; then
    echo "installing cbindgen ${CBINDGEN_VERSION} from crates.io" >&2
    cargo install cbindgen --version "${CBINDGEN_VERSION}" --locked --force
fi

if ! cargo +nightly --version >/dev/null 2>&1; then
    echo "installing the nightly Rust toolchain (minimal profile)" >&2
    rustup toolchain install nightly --profile minimal
fi

for component in miri rust-src; do
    if ! rustup component list --toolchain nightly --installed 2>/dev/null | grep -q "^${component}"; then
        echo "adding the nightly component ${component}" >&2
        rustup component add --toolchain nightly "${component}"
    fi
done

for target in thumbv7em-none-eabihf thumbv6m-none-eabi; do
    if ! rustup target list --installed 2>/dev/null | grep -qx "${target}"; then
        echo "adding the Rust target ${target}" >&2
        rustup target add "${target}"
    fi
done

missing=()
command -v arm-none-eabi-gcc >/dev/null 2>&1 || missing+=(gcc-arm-none-eabi)
command -v objdump >/dev/null 2>&1 || missing+=(binutils)
command -v valgrind >/dev/null 2>&1 || missing+=(valgrind)
command -v cmake >/dev/null 2>&1 || missing+=(cmake)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
if [ "${#missing[@]}" -gt 0 ]; then
    echo "installing ${missing[*]} from Debian packages" >&2
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi
