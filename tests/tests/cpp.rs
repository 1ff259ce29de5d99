//! The C++ wrapper (include/sketches.hpp) tests pass: tests/cpp/cpp_test.cpp
//! built as C++17 and C++20 with -Wall -Wextra -Werror -pedantic and
//! conversion warnings, and under AddressSanitizer + UBSan;
//! tests/cpp/cpp_noexcept_test.cpp built with -fno-exceptions (the
//! status-returning forms), plain and under the sanitizers; cpp_test.cpp
//! once more under ThreadSanitizer, for the concurrent members (8 threads
//! adding to one image while another queries it).

use sketches_tests::{compile_cxx, cxx_compiler, out_dir, run_ok, target_cflags, workspace};
use std::path::PathBuf;
use std::process::Command;

const SANITIZE: &[&str] =
    &["-O1", "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"];
/// The tests allocate an 8 PiB filter on purpose: ASan must return NULL, as malloc does.
const ASAN_OPTIONS: &str = "detect_leaks=1:abort_on_error=1:allocator_may_return_null=1";

fn source(name: &str) -> Vec<PathBuf> {
    vec![workspace().join("tests/cpp").join(name)]
}

/// The Parquet writers' files the C++ test reads (tests/parquet).
fn parquet_dir() -> PathBuf {
    workspace().join("tests/parquet")
}

fn run_and_check(exe: PathBuf) {
    let out = run_ok(
        Command::new(exe).env("ASAN_OPTIONS", ASAN_OPTIONS).env("SKETCHES_PARQUET_DIR", parquet_dir()),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.contains(" passed, ")).expect("summary line");
    assert!(line.ends_with(" 0 failed"), "{line}");
    let passed: u32 =
        line.split(": ").nth(1).and_then(|s| s.split(' ').next()).and_then(|n| n.parse().ok()).unwrap();
    assert!(passed > 250, "too few checks ran: {line}");
    print!("{text}");
}

#[test]
fn cpp_test_passes_as_cxx17() {
    run_and_check(compile_cxx("cpp_test_17", &source("cpp_test.cpp"), "c++17", &[]));
}

#[test]
fn cpp_test_passes_as_cxx20() {
    run_and_check(compile_cxx("cpp_test_20", &source("cpp_test.cpp"), "c++20", &[]));
}

#[test]
fn cpp_test_passes_under_address_and_undefined_sanitizers() {
    run_and_check(compile_cxx("cpp_test_asan", &source("cpp_test.cpp"), "c++17", SANITIZE));
}

#[test]
fn cpp_test_passes_under_thread_sanitizer() {
    let exe = compile_cxx("cpp_test_tsan", &source("cpp_test.cpp"), "c++17", &["-O1", "-fsanitize=thread"]);
    let out = run_ok(
        Command::new(exe)
            .env("TSAN_OPTIONS", "halt_on_error=1:allocator_may_return_null=1")
            .env("SKETCHES_PARQUET_DIR", parquet_dir()),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.lines().any(|l| l.contains(" passed, ") && l.ends_with(" 0 failed")), "{text}");
}

#[test]
fn cpp_noexcept_test_passes_without_exceptions() {
    run_and_check(compile_cxx(
        "cpp_noexcept_17",
        &source("cpp_noexcept_test.cpp"),
        "c++17",
        &["-fno-exceptions"],
    ));
    let mut flags = vec!["-fno-exceptions"];
    flags.extend_from_slice(SANITIZE);
    run_and_check(compile_cxx("cpp_noexcept_20_asan", &source("cpp_noexcept_test.cpp"), "c++20", &flags));
}

/// A module built with -fno-exceptions (tests/cpp/cpp_mixed_module.cpp),
/// linked first into a program built with exceptions
/// (tests/cpp/cpp_mixed_main.cpp): the program's try_read_from,
/// try_read_sketch and try_write_to still report a throwing stream as
/// status::stream_error. The module's object file defined the wrapper's
/// out-of-line stream functions without their catch, the linker kept those
/// for the whole program, and the program's "never throws" try_ forms let
/// the stream's exception escape a noexcept function (std::terminate). The
/// two translation units including the header also link without a
/// duplicate definition.
#[test]
fn a_no_exceptions_module_does_not_change_the_programs_try_forms() {
    let module = out_dir().join("cpp_mixed_module.o");
    let out = Command::new(cxx_compiler())
        .args(["-std=c++17", "-O2", "-c", "-fno-exceptions", "-Wall", "-Wextra", "-Werror", "-pedantic"])
        .args(["-Wconversion", "-Wsign-conversion", "-Wshadow", "-Wold-style-cast"])
        .args(target_cflags())
        .arg("-I")
        .arg(workspace().join("include"))
        .arg(workspace().join("tests/cpp/cpp_mixed_module.cpp"))
        .arg("-o")
        .arg(&module)
        .output()
        .expect("run the C++ compiler");
    assert!(out.status.success(), "compiling the module failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let exe =
        compile_cxx("cpp_mixed", &[module, workspace().join("tests/cpp/cpp_mixed_main.cpp")], "c++17", &[]);
    let out = Command::new(exe).output().expect("spawn");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("cpp_mixed: 7 passed, 0 failed"),
        "{}:\n{text}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Compiles tests/cpp/`name` with -fsyntax-only and the flags of compile_cxx.
fn syntax_check(name: &str, std: &str, extra: &[&str]) -> std::process::Output {
    Command::new(cxx_compiler())
        .arg(format!("-std={std}"))
        .args(["-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-pedantic"])
        .args(["-Wconversion", "-Wsign-conversion", "-Wshadow", "-Wold-style-cast"])
        .args(extra)
        .arg("-I")
        .arg(workspace().join("include"))
        .arg(workspace().join("tests/cpp").join(name))
        .output()
        .expect("run the C++ compiler")
}

/// A compile-fail case: `file` compiles as C++17 and C++20 with `define`
/// (the correct use), and fails without it with errors that `refused`
/// recognizes (the intended diagnostic, not any error).
fn compiles_only_with(file: &str, define: &str, refused: impl Fn(&str) -> bool) {
    for std in ["c++17", "c++20"] {
        let ok = syntax_check(file, std, &[define]);
        assert!(ok.status.success(), "{file} {std} {define}:\n{}", String::from_utf8_lossy(&ok.stderr));
        let bad = syntax_check(file, std, &[]);
        let err = String::from_utf8_lossy(&bad.stderr);
        assert!(!bad.status.success() && refused(&err), "{file} {std}: compiled or failed otherwise:\n{err}");
    }
}

/// A key range yielding std::array keys by value (a transform returning a
/// fixed-size key) does not compile: the batch would point into temporaries
/// dead after each iteration (all keys but the last lost). The same range
/// yielding references compiles.
#[test]
fn key_range_of_owning_std_array_temporaries_does_not_compile() {
    compiles_only_with("cpp_owning_keys_fail.cpp", "-DYIELD_REFERENCES", |err| {
        err.contains("owning temporaries")
    });
}

/// `if (f.try_contains(key))` does not compile: a result<bool> has no
/// conversion to bool, which would test the call's status, not the answer
/// (true for an absent key). Reading `ok()` and `value` compiles, and other
/// results still convert to bool.
#[test]
fn result_bool_is_not_testable_as_a_bool() {
    compiles_only_with("cpp_result_bool_fail.cpp", "-DTEST_THE_VALUE", |err| {
        err.contains("deleted") && err.contains("operator bool")
    });
}

/// A view of a temporary owning sketch (`create(...).view()`) does not
/// compile: its buffer dies at the end of the statement. Views of a named
/// sketch, and a view of a temporary view (which owns nothing), compile.
#[test]
fn views_of_temporary_owning_sketches_do_not_compile() {
    compiles_only_with("cpp_view_of_temporary_fail.cpp", "-DNAMED_OWNER", |err| {
        err.matches("deleted").count() >= 2
    });
}

/// A read-only view made of a temporary owning sketch
/// (`bloom_const_view v = bloom_filter::from_bytes(b);`) does not compile: it
/// pointed into a buffer freed at the end of the statement. Read-only views
/// of named sketches and of views, and temporaries passed to merge,
/// intersect and jaccard, compile.
#[test]
fn const_views_of_temporary_owning_sketches_do_not_compile() {
    compiles_only_with("cpp_const_view_of_temporary_fail.cpp", "-DNAMED_OWNER", |err| {
        err.matches("deleted").count() >= 2
    });
}

/// In the GNU dialects (g++'s default), where __int128 is integral, a
/// container of 128-bit integers is not a key range: cut to 64 bits, keys
/// differing only in their high half became one key. Nor is a 128-bit
/// integer a Count-Min or Top-k weight (2^64 + 5 was added as 5).
#[test]
fn int128_containers_are_not_key_ranges_in_gnu_dialects() {
    for std in ["gnu++17", "gnu++20"] {
        let out = syntax_check("cpp_int128_keys.cpp", std, &[]);
        assert!(out.status.success(), "{std}:\n{}", String::from_utf8_lossy(&out.stderr));
    }
}

/// `f.add('x')` (and bool or floating-point keys, in every single-key member
/// of every family and in sketches::hash) does not compile: it converted
/// silently to the integer overload and added the integer 120, not the key
/// "x". Integers of up to 64 bits and byte keys still compile everywhere.
#[test]
fn character_bool_and_float_single_keys_do_not_compile() {
    compiles_only_with("cpp_single_key_fail.cpp", "-DWRITE_THE_KEY", |err| {
        err.contains("deleted") && err.contains("K = char")
    });
}

/// What points into a temporary owning sketch's buffer does not compile, as
/// its views do not: `topk_sketch::from_bytes(b).list_into(items)` left every
/// item's key pointing into the freed image (heap use-after-free), and the
/// byte_view of `make_filter().bitset()` / `.bytes()` dangled. The same calls
/// on named sketches and on temporary views compile.
#[test]
fn pointers_into_temporary_owning_sketches_do_not_compile() {
    compiles_only_with("cpp_pointers_into_temporary_fail.cpp", "-DNAMED_OWNER", |err| {
        err.matches("deleted").count() >= 5 && err.contains("list_into") && err.contains("bitset")
    });
}

/// A braced list of keys (`f.add_batch({"alice"})`, contains_batch,
/// hash_batch, fuse build) does not compile: it became a packed_view with
/// data "alice" and count 0, so nothing was added and nothing found,
/// silently. Keys in a container, and packed_views of all four parts or
/// empty, compile.
#[test]
fn braced_key_lists_are_not_empty_packed_batches() {
    compiles_only_with("cpp_braced_keys_fail.cpp", "-DA_CONTAINER", |err| {
        err.matches("deleted").count() >= 4 && err.contains("initializer_list")
    });
}

/// A char pointer and a length (C's key, key_len) passed to hash,
/// hash_xxh64, or a Count-Min / Top-k add does not compile: the pointer was
/// read as a C string and the length as the seed or the weight
/// (hash(s.data(), s.size()) gave another hash than hash(s); a buffer
/// without a NUL was read past its end). Byte views, string views and
/// string literals with a seed or weight compile.
#[test]
fn char_pointer_and_length_pairs_do_not_compile() {
    compiles_only_with("cpp_pointer_and_length_fail.cpp", "-DSPELL_THE_BYTES", |err| {
        err.matches("deleted").count() >= 7 && err.contains("hash_xxh64")
    });
}

/// A packed_view of a temporary packed_keys (`packed_view v = load_keys();`,
/// `load_keys().view()`) does not compile: it pointed into buffers freed at
/// the end of the statement (the batch read freed memory). Views of a named
/// packed_keys, and temporaries passed straight to a batch member,
/// hash_batch or the fuse build (parameters of type packed_source, which the
/// temporary outlives), compile.
#[test]
fn packed_views_of_temporary_packed_keys_do_not_compile() {
    compiles_only_with("cpp_packed_view_of_temporary_fail.cpp", "-DNAMED_KEYS", |err| {
        err.matches("deleted").count() >= 2 && err.contains("packed_keys::view() const &&")
    });
}

/// A byte_view of a temporary container that owns its bytes
/// (`byte_view k = make_key();` of a returned std::string, std::vector or
/// std::array) does not compile: it pointed into bytes freed at the end of
/// the statement. byte_views of named containers and of string views, and
/// temporaries passed straight to the members and functions taking a key or
/// image bytes (parameters of type byte_source), compile.
#[test]
fn byte_views_of_temporary_owning_containers_do_not_compile() {
    compiles_only_with("cpp_byte_view_of_temporary_fail.cpp", "-DNAMED_KEY", |err| {
        err.matches("deleted").count() >= 3 && err.contains("byte_view(const R&&)")
    });
}

/// A view or the bytes of the owning sketch inside a temporary result
/// (`bloom_const_view v = *bloom_filter::try_from_bytes(b);`,
/// `bloom_filter::try_create(p)->view()`) does not compile: it pointed into a
/// buffer freed at the end of the statement. Views of a named result, the
/// sketch moved out of a temporary result with `*`, and `->` on temporary
/// results of other values (`try_plan(n, p)->bits`) compile.
#[test]
fn views_into_temporary_results_do_not_compile() {
    compiles_only_with("cpp_result_of_temporary_fail.cpp", "-DNAMED_RESULT", |err| {
        err.matches("deleted").count() >= 4 && err.contains("operator->() &&")
    });
}

/// An array_view of a temporary container that owns its elements
/// (`array_view<const std::uint64_t> w = make_weights();`) or of a braced
/// list (`= {3, 4}`) does not compile: it pointed into elements freed at the
/// end of the statement. array_views of named containers, and temporaries
/// and braced lists passed straight to the members taking weights, hashes
/// or outputs (parameters of type array_source), compile.
#[test]
fn array_views_of_temporaries_do_not_compile() {
    compiles_only_with("cpp_array_view_of_temporary_fail.cpp", "-DNAMED_ARRAY", |err| {
        err.matches("deleted").count() >= 2 && err.contains("initializer_list")
    });
}

/// A single-pass range of keys (`words_of{&in}` or a C++20 subrange of
/// std::istream_iterator<std::string>) passed to a batch does not compile:
/// the batch counted the keys by iterating once, consuming the stream, and
/// handed the C call uninitialized key slices for all but the first. The
/// same words copied into a container, and multi-pass C++20 views, compile.
#[test]
fn single_pass_key_ranges_do_not_compile() {
    compiles_only_with("cpp_single_pass_keys_fail.cpp", "-DA_CONTAINER", |err| err.contains("single-pass"));
}
