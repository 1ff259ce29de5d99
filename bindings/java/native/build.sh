#!/usr/bin/env bash
# Builds the native library of the Java binding: libsketches.a (cargo, the
# sketches-clib crate), then the JNI glue in this folder linked statically
# with it into one shared library, written where the jar expects it:
#   <out>/dev/sketches/native/<os>-<arch>/libsketches_jni.so
# Usage: build.sh <java.home> <output classes directory>
# Called by Maven (exec-maven-plugin, generate-resources); CC and CARGO may be overridden.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
java_home="${1:?usage: build.sh <java.home> <out dir>}"
out_dir="${2:?usage: build.sh <java.home> <out dir>}"
cc="${CC:-cc}"
cargo="${CARGO:-cargo}"

case "$(uname -s)" in
Linux) os=linux ;;
*) echo "build.sh: only Linux is set up (uname: $(uname -s))" >&2; exit 1 ;;
esac
case "$(uname -m)" in
x86_64 | amd64) arch=x86_64 ;;
aarch64 | arm64) arch=aarch64 ;;
*) arch="$(uname -m)" ;;
esac

# 1. The Rust static library (incremental: a no-op when nothing changed).
(cd "$root" && "$cargo" build --release --quiet -p sketches-clib)
target_dir="${CARGO_TARGET_DIR:-$root/target}"
lib="$target_dir/release/libsketches.a"

# 2. The JNI glue, warnings as errors, linked with libsketches.a; only the JNI
# symbols are exported (the Rust objects' symbols stay hidden).
jni_inc="$java_home/include"
[ -f "$jni_inc/jni.h" ] || { echo "build.sh: no jni.h under $jni_inc (need a JDK, not a JRE)" >&2; exit 1; }
dest="$out_dir/dev/sketches/native/$os-$arch"
mkdir -p "$dest"
"$cc" -std=c11 -O2 -fPIC -fvisibility=hidden -Wall -Wextra -Werror \
    -I"$jni_inc" -I"$jni_inc/linux" -I"$root/include" \
    -shared -o "$dest/libsketches_jni.so.tmp" "$here"/*.c "$lib" \
    -Wl,--exclude-libs,ALL -Wl,--gc-sections -Wl,-z,defs -Wl,-z,noexecstack -Wl,-z,relro,-z,now -s
mv "$dest/libsketches_jni.so.tmp" "$dest/libsketches_jni.so"
