#!/usr/bin/env bash
# Installs libsketches (built by `make lib`) under a prefix:
#   PREFIX/lib/libsketches.a
#   PREFIX/lib/libsketches.so.X.Y.Z, libsketches.so.X -> it, libsketches.so -> libsketches.so.X
#   PREFIX/include/sketches.h (and sketches.hpp when present)
#   PREFIX/lib/pkgconfig/sketches.pc (shared) and sketches-static.pc (libsketches.a)
#   PREFIX/lib/cmake/sketches/sketchesConfig.cmake, sketchesConfigVersion.cmake
# Usage: scripts/install.sh PREFIX [LIBDIR] [INCLUDEDIR]   (DESTDIR is honoured for staging;
# SKETCHES_BUILD_DIR names the directory holding the built libraries, default target/release)
set -euo pipefail
cd "$(dirname "$0")/.."
prefix="${1:?usage: scripts/install.sh PREFIX [LIBDIR] [INCLUDEDIR]}"
libdir="${2:-$prefix/lib}"
includedir="${3:-$prefix/include}"
dest="${DESTDIR:-}"
version="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n1)"
major="${version%%.*}"
build="${SKETCHES_BUILD_DIR:-target/release}"

for f in "$build/libsketches.a" "$build/libsketches.so" include/sketches.h; do
    [ -f "$f" ] || { echo "install: $f is missing (run make lib first)" >&2; exit 1; }
done

install -d "$dest$libdir" "$dest$includedir" "$dest$libdir/pkgconfig" "$dest$libdir/cmake/sketches"
# Release artifacts carry no debug information.
install -m 0644 "$build/libsketches.a" "$dest$libdir/libsketches.a"
strip --strip-debug "$dest$libdir/libsketches.a"
install -m 0755 "$build/libsketches.so" "$dest$libdir/libsketches.so.$version"
strip --strip-unneeded "$dest$libdir/libsketches.so.$version"
ln -sf "libsketches.so.$version" "$dest$libdir/libsketches.so.$major"
ln -sf "libsketches.so.$major" "$dest$libdir/libsketches.so"
install -m 0644 include/sketches.h "$dest$includedir/sketches.h"
if [ -f include/sketches.hpp ]; then
    install -m 0644 include/sketches.hpp "$dest$includedir/sketches.hpp"
fi

# pkg-config paths relative to ${prefix} where they lie under it (relocatable).
pc_libdir="$libdir"; pc_includedir="$includedir"
case "$libdir" in "$prefix"/*) pc_libdir="\${prefix}/${libdir#"$prefix"/}" ;; esac
case "$includedir" in "$prefix"/*) pc_includedir="\${prefix}/${includedir#"$prefix"/}" ;; esac
# sketches.pc links libsketches.so; sketches-static.pc names libsketches.a by
# path (the Go binding's sketches_static build tag uses it).
for pc in sketches sketches-static; do
    sed -e "s|@PREFIX@|$prefix|g" -e "s|@LIBDIR@|$pc_libdir|g" -e "s|@INCLUDEDIR@|$pc_includedir|g" \
        -e "s|@VERSION@|$version|g" "clib/install/$pc.pc.in" > "$dest$libdir/pkgconfig/$pc.pc"
done

# The CMake package finds everything relative to its own directory.
cmake_dir="$libdir/cmake/sketches"
to_prefix="$(realpath -m --relative-to="$cmake_dir" "$prefix")"
lib_rel="$(realpath -m --relative-to="$prefix" "$libdir")"
include_rel="$(realpath -m --relative-to="$prefix" "$includedir")"
for f in sketchesConfig sketchesConfigVersion; do
    sed -e "s|@CMAKE_TO_PREFIX@|$to_prefix|g" -e "s|@LIB_REL@|$lib_rel|g" -e "s|@INCLUDE_REL@|$include_rel|g" \
        -e "s|@VERSION@|$version|g" -e "s|@MAJOR@|$major|g" \
        "clib/install/$f.cmake.in" > "$dest$cmake_dir/$f.cmake"
done
echo "installed libsketches $version under $dest$prefix"
