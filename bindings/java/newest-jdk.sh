#!/usr/bin/env bash
# Prints the home of the newest JDK under /usr/lib/jvm (or $JVM_DIR) whose
# major version is above the default java's, or nothing when there is none.
# `make java-test` runs the Java tests on it as well.
set -euo pipefail
dir="${JVM_DIR:-/usr/lib/jvm}"
current="$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')"
best="" best_major="${current:-0}"
for home in "$dir"/*/; do
    home="${home%/}"
    [ -x "$home/bin/java" ] && [ -f "$home/include/jni.h" ] && [ -f "$home/release" ] || continue
    v="$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$home/release")"
    [ -n "$v" ] || continue
    if [ "$v" -gt "$best_major" ]; then
        best="$home" best_major="$v"
    fi
done
[ -n "$best" ] && echo "$best"
exit 0
