# Quick start:
#   make stand   build libsketches and run the stand (the demo, through the C ABI)
#   make test    run every test (installs pinned cbindgen and valgrind if missing),
#                ending with 90 s of coverage-guided fuzzing (FUZZ_SECONDS)
#   make fuzz    only the fuzzing (FUZZ_SECONDS=600 make fuzz for a longer run)
#   make miri    the C ABI's overlap tests under Miri (undefined behaviour fails them)
#   make python-test   the Python binding's tests (venv in target/python-venv)
#   make python-bench  the Python binding beside pybloom-live, rbloom, fastbloom-rs, datasketches
#   make c-test  the C side alone: the C ABI's C tests (ASan/UBSan, valgrind), concurrent adds
#                under TSan, the header drift check, the examples and the stand, install with pkg-config/CMake
#   make cpp-test    the C++ wrapper's tests (C++17 and C++20, ASan/UBSan, TSan, -fno-exceptions)
#   make go-test the Go binding's checks (bindings/go/ci.sh); make go-stand its stand
#   make java-test   the Java binding's tests (bindings/java; also on the newest JDK found)
#   make java-bench  the Java binding's JMH benchmarks beside Guava, stream-lib, DataSketches
#   make spark-test  the Spark functions' tests in local mode (bindings/spark, on the Java binding)
#   make test-32 the core, C ABI, C and C++ tests with a 32-bit usize (i686, -m32), and a
#                wasm32 build of the core (not part of `make test`; installs multilib if missing)
#   make characterize  the core's statistical tests with their full trial counts (long;
#                `make test` runs them with fewer trials), log in target/characterize.log
CC ?= cc
CFLAGS_EXAMPLES = -std=c11 -O2 -Wall -Wextra -Werror -pedantic -Iinclude
LIBS = target/release/libsketches.a -lpthread -ldl -lm

FUZZ_SECONDS ?= 90
PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include

.PHONY: stand test lib header tools bench examples clean fuzz fuzz-lint install uninstall \
	python-venv python-lint python-test python-bench go-install go-test go-stand go-bench \
	c-test cpp-test java-test java-bench spark-install spark-test spark-bench pyspark-venv characterize miri test-32

stand: examples
	./build/stand

lib:
	cargo build --release -p sketches-clib

# Installs libsketches.a, libsketches.so.MAJOR (SONAME), the headers, a
# pkg-config file and a CMake package under PREFIX (DESTDIR for staging).
install: lib
	./scripts/install.sh "$(PREFIX)" "$(LIBDIR)" "$(INCLUDEDIR)"

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libsketches.a $(DESTDIR)$(LIBDIR)/libsketches.so*
	rm -f $(DESTDIR)$(INCLUDEDIR)/sketches.h $(DESTDIR)$(INCLUDEDIR)/sketches.hpp
	rm -f $(DESTDIR)$(LIBDIR)/pkgconfig/sketches.pc $(DESTDIR)$(LIBDIR)/pkgconfig/sketches-static.pc
	rm -rf $(DESTDIR)$(LIBDIR)/cmake/sketches

examples: lib
	mkdir -p build
	$(CC) $(CFLAGS_EXAMPLES) c-examples/stand.c $(LIBS) -o build/stand
	$(CC) $(CFLAGS_EXAMPLES) c-examples/dedup.c $(LIBS) -o build/dedup

tools:
	./scripts/install-test-tools.sh

# Miri (nightly; Stacked Borrows) over the C ABI called the way C calls it:
# every family's single-key, batch and query boundary with arguments that
# overlap what the call writes, and with arguments that only touch it.
# Under Miri the CPU feature detection reports none: the portable paths run.
miri: tools
	cargo +nightly miri test -p sketches-ffi --test overlap

# The full statistical characterization (the trial counts the README quotes):
# the same unit tests `make test` runs quickly, with SKETCHES_FULL_ACCURACY=1.
characterize:
	mkdir -p target
	bash -o pipefail -c 'SKETCHES_FULL_ACCURACY=1 cargo test -p sketches-core --release -- --nocapture \
		2>&1 | tee target/characterize.log'

# 32-bit targets (Cortex-M firmware, 32-bit Linux on armv7/i686, wasm32) where usize and
# size_t are 32 bits: the core's unit tests (statistical ones included: the same 64-bit
# hashes) and the C ABI's Rust tests built for i686-unknown-linux-gnu and run here; then
# libsketches built for i686 with the C and C++ tests compiled -m32 against it (under
# ASan + UBSan; valgrind needs i386 glibc debug symbols and ThreadSanitizer has no 32-bit
# x86 runtime, so those two run only in the 64-bit `make test`), the golden images
# rebuilt on i686 byte for byte, the damaged-image checks and the C examples; last, the
# core built for wasm32-unknown-unknown (a compile check). Installs gcc-multilib and
# g++-multilib with apt only when missing, and the two Rust targets (rustup: a no-op when
# present). Not part of `make test`.
TARGET_32 = i686-unknown-linux-gnu
test-32:
	dpkg -s gcc-multilib g++-multilib > /dev/null 2>&1 || \
		(apt-get update && apt-get install -y gcc-multilib g++-multilib)
	rustup target add $(TARGET_32) wasm32-unknown-unknown
	cargo test -p sketches-core --lib --target $(TARGET_32)
	cargo test -p sketches-ffi --target $(TARGET_32)
	cargo test -p sketches-tests --target $(TARGET_32) --test c_abi --test concurrent --test cpp \
		--test golden --test untrusted_images --test examples -- --skip valgrind --skip thread_sanitizer
	cargo build -p sketches-core --target wasm32-unknown-unknown

test: tools
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings
	# The library as firmware builds it (Cortex-M4F, Cortex-M0+): code behind non-x86 cfgs is linted too.
	cargo clippy -p sketches-core -p sketches-ffi --lib --target thumbv7em-none-eabihf -- -D warnings
	cargo clippy -p sketches-core -p sketches-ffi --lib --target thumbv6m-none-eabi -- -D warnings
	# The API docs build without broken or private intra-doc links.
	RUSTDOCFLAGS="-D warnings" cargo doc --no-deps -p sketches-core -p sketches-ffi
	cargo test --workspace
	$(MAKE) miri
	$(MAKE) python-test
	$(MAKE) go-test
	$(MAKE) java-test
	$(MAKE) spark-test
	$(MAKE) fuzz-lint fuzz

# The Python binding (bindings/python, its own cargo workspace): a venv with
# pinned test dependencies, `pip install ./bindings/python`, then pytest. The
# C library is built too: the tests compare images made through it.
# `cargo test --workspace` in `make test` runs these too; the targets run one language's side alone.
c-test: tools
	cargo test -p sketches-tests --test c_abi --test concurrent --test header --test examples --test install

cpp-test: tools
	cargo test -p sketches-tests --test cpp

python-venv:
	./scripts/python-venv.sh

python-lint:
	cd bindings/python && cargo fmt -- --check
	cd bindings/python && cargo clippy --release -- -D warnings

python-test: lib python-venv python-lint
	SKETCHES_LIB=$(CURDIR)/target/release/libsketches.so SKETCHES_REQUIRE_CLIB=1 \
		target/python-venv/bin/python -m pytest -q bindings/python/tests

python-bench: lib
	./scripts/python-venv.sh bindings/python/requirements-bench.txt
	target/python-venv/bin/python bindings/python/bench/bench.py

# The Java binding: Maven builds libsketches.a (cargo) and the JNI library
# itself, packs it into the jar and runs the JUnit tests on the default JDK
# and, when /usr/lib/jvm has a newer one, on that JDK too.
JAVA_EXTRA_JDK ?= $(shell bindings/java/newest-jdk.sh)
MVN ?= mvn
MVN_FLAGS ?= -B -ntp

java-test:
	cd bindings/java && $(MVN) $(MVN_FLAGS) verify $(if $(JAVA_EXTRA_JDK),-Dsketches.extraJdk=$(JAVA_EXTRA_JDK))

# The Spark binding (bindings/spark, Spark 4 / Scala 2.13, Spark itself `provided`): installs
# the Java binding into the local Maven repository, builds the C reader of the cross-binding test
# (build/spark-image-check, on libsketches.a), then runs the JUnit tests in local[2] mode.
spark-install: lib
	mkdir -p build
	$(CC) $(CFLAGS_EXAMPLES) bindings/spark/src/test/c/image_check.c $(LIBS) -o build/spark-image-check
	cd bindings/java && $(MVN) $(MVN_FLAGS) -q install -DskipTests

# SPARK_PYTHON: a Python that can import pyspark runs examples/seed_examples.py as a test too;
# by default a venv in target/pyspark-venv with pyspark pinned to the Spark of bindings/spark.
PYSPARK_VERSION = 4.2.0
SPARK_PYTHON ?= $(CURDIR)/target/pyspark-venv/bin/python
pyspark-venv:
	test -x target/pyspark-venv/bin/python || python3 -m venv target/pyspark-venv
	target/pyspark-venv/bin/python -m pip install -q --disable-pip-version-check pyspark==$(PYSPARK_VERSION)

spark-test: spark-install pyspark-venv
	cd bindings/spark && $(MVN) $(MVN_FLAGS) verify -Dsketches.imageCheck=$(CURDIR)/build/spark-image-check \
		-Dsketches.python=$(SPARK_PYTHON)

# One run of bindings/spark's benchmark (10^7 rows, local mode): Bloom build against Spark's
# DataFrame.stat.bloomFilter, distinct count against approx_count_distinct.
SPARK_BENCH_ROWS ?= 10000000
SPARK_BENCH_RUNS ?= 3
spark-bench: spark-install
	cd bindings/spark && $(MVN) $(MVN_FLAGS) -q test-compile exec:exec -Dsketches.benchRows=$(SPARK_BENCH_ROWS) \
		-Dsketches.benchRuns=$(SPARK_BENCH_RUNS)

# JMH (one run): installs the binding into the local Maven repository, then
# builds and runs bindings/java/bench (JMH_ARGS narrows it, e.g. JMH_ARGS='Bloom'),
# then the cardinality error at equal memory (ACCURACY_TRIALS streams of 10^6 keys).
JMH_ARGS ?=
ACCURACY_TRIALS ?= 64
java-bench:
	cd bindings/java && $(MVN) $(MVN_FLAGS) -q install -DskipTests
	cd bindings/java/bench && $(MVN) $(MVN_FLAGS) -q package
	java -jar bindings/java/bench/target/benchmarks.jar $(JMH_ARGS)
	java -cp bindings/java/bench/target/benchmarks.jar dev.sketches.bench.Accuracy $(ACCURACY_TRIALS)

# The fuzz crate is its own workspace (built with coverage instrumentation).
fuzz-lint:
	cd fuzz && cargo fmt -- --check
	./fuzz/run.sh --clippy

fuzz:
	./fuzz/run.sh $(FUZZ_SECONDS)

# The Go binding (bindings/go) builds against an installed libsketches
# through pkg-config: these targets install it into a build-local prefix
# and point PKG_CONFIG_PATH there. Tests link libsketches.a (build tag
# sketches_static), so nothing needs LD_LIBRARY_PATH.
GO_PREFIX = $(CURDIR)/target/go-prefix
GO_ENV = PKG_CONFIG_PATH=$(GO_PREFIX)/lib/pkgconfig
GO_FUZZ_SECONDS ?= 3

go-install: lib
	./scripts/install.sh "$(GO_PREFIX)" > /dev/null

go-test: go-install
	$(GO_ENV) GO_FUZZ_SECONDS=$(GO_FUZZ_SECONDS) ./bindings/go/ci.sh

go-stand: go-install
	cd bindings/go && $(GO_ENV) go run -tags sketches_static ./cmd/stand

go-bench: go-install
	cd bindings/go && $(GO_ENV) go test -tags sketches_static -run '^$$' -bench . -benchtime 5x

header: tools
	cd ffi && cbindgen --config cbindgen.toml --quiet -o ../include/sketches.h

bench:
	cargo bench -p sketches-core --bench filters
	cargo bench -p sketches-ffi --bench ffi_batch

clean:
	cargo clean
	rm -rf build bindings/java/target bindings/java/bench/target
