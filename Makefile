# Quick start:
#   make stand   build libsketches and run the stand (the demo, through the C ABI)
#   make test    run every test (installs pinned cbindgen and valgrind if missing),
#                ending with 90 s of coverage-guided fuzzing (FUZZ_SECONDS)
#   make fuzz    only the fuzzing (FUZZ_SECONDS=600 make fuzz for a longer run)
CC ?= cc
CFLAGS_EXAMPLES = -std=c11 -O2 -Wall -Wextra -Werror -pedantic -Iinclude
LIBS = target/release/libsketches.a -lpthread -ldl -lm

FUZZ_SECONDS ?= 90
PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include

.PHONY: stand test lib header tools bench examples clean fuzz fuzz-lint install uninstall

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

test: tools
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings
	cargo test --workspace
	$(MAKE) fuzz-lint fuzz

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
	rm -rf build
