# Quick start:
#   make stand   build libsketches and run the stand (the demo, through the C ABI)
#   make test    run every test (installs pinned cbindgen and valgrind if missing),
#                ending with 90 s of coverage-guided fuzzing (FUZZ_SECONDS)
#   make fuzz    only the fuzzing (FUZZ_SECONDS=600 make fuzz for a longer run)
#   make java-test   the Java binding's tests (bindings/java; also on the newest JDK found)
#   make java-bench  the Java binding's JMH benchmarks beside Guava, stream-lib, DataSketches
CC ?= cc
CFLAGS_EXAMPLES = -std=c11 -O2 -Wall -Wextra -Werror -pedantic -Iinclude
LIBS = target/release/libsketches.a -lpthread -ldl -lm

FUZZ_SECONDS ?= 90

.PHONY: stand test lib header tools bench examples clean fuzz fuzz-lint java-test java-bench

stand: examples
	./build/stand

lib:
	cargo build --release -p sketches-clib

examples: lib
	mkdir -p build
	$(CC) $(CFLAGS_EXAMPLES) c-examples/stand.c $(LIBS) -o build/stand
	$(CC) $(CFLAGS_EXAMPLES) c-examples/dedup.c $(LIBS) -o build/dedup

tools:
	./scripts/install-test-tools.sh

test: tools
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings
	cargo test --workspace
	$(MAKE) java-test
	$(MAKE) fuzz-lint fuzz

# The Java binding: Maven builds libsketches.a (cargo) and the JNI library
# itself, packs it into the jar and runs the JUnit tests on the default JDK
# and, when /usr/lib/jvm has a newer one, on that JDK too.
JAVA_EXTRA_JDK ?= $(shell bindings/java/newest-jdk.sh)
MVN ?= mvn
MVN_FLAGS ?= -B -ntp

java-test:
	cd bindings/java && $(MVN) $(MVN_FLAGS) verify $(if $(JAVA_EXTRA_JDK),-Dsketches.extraJdk=$(JAVA_EXTRA_JDK))

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
	cd fuzz && cargo clippy --locked --release -- -D warnings

fuzz:
	./fuzz/run.sh $(FUZZ_SECONDS)

header: tools
	cd ffi && cbindgen --config cbindgen.toml --quiet -o ../include/sketches.h

bench:
	cargo bench -p sketches-core --bench filters
	cargo bench -p sketches-ffi --bench ffi_batch

clean:
	cargo clean
	rm -rf build bindings/java/target bindings/java/bench/target
