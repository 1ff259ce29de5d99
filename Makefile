# Quick start:
#   make stand   build libsketches and run the stand (the demo, through the C ABI)
#   make test    run every test (installs pinned cbindgen and valgrind if missing)
CC ?= cc
CFLAGS_EXAMPLES = -std=c11 -O2 -Wall -Wextra -Werror -pedantic -Iinclude
LIBS = target/release/libsketches.a -lpthread -ldl -lm

.PHONY: stand test lib header tools bench examples clean

stand: examples
	./build/stand

lib:
	cargo build --release -p sketches-ffi

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

header: tools
	cd ffi && cbindgen --config cbindgen.toml --quiet -o ../include/sketches.h

bench:
	cargo bench -p sketches-core --bench filters
	cargo bench -p sketches-ffi --bench ffi_batch

clean:
	cargo clean
	rm -rf build
