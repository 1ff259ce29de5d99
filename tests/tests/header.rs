//! The committed header is exactly what the pinned cbindgen generates, and
//! it compiles alone as C99 and as C++ with warnings as errors; the C++
//! wrapper (sketches.hpp) compiles alone as C++17 and C++20, with and without
//! exceptions, and its const views refuse changes at compile time.

use sketches_tests::{c_compiler, cxx_compiler, out_dir, run_ok, workspace};
use std::process::Command;

/// The cbindgen version the header is generated with (also in .ci/run and the Makefile).
const CBINDGEN_VERSION: &str = "0.29.4";

#[test]
fn header_matches_pinned_cbindgen_output() {
    let version = Command::new("cbindgen").arg("--version").output().unwrap_or_else(|e| {
        panic!("cbindgen {CBINDGEN_VERSION} is required: cargo install cbindgen --version {CBINDGEN_VERSION} --locked ({e})")
    });
    let text = String::from_utf8_lossy(&version.stdout);
    assert!(
        text.trim() == format!("cbindgen {CBINDGEN_VERSION}"),
        "found `{}`; the header is pinned to cbindgen {CBINDGEN_VERSION}: cargo install cbindgen --version {CBINDGEN_VERSION} --locked",
        text.trim()
    );
    let generated = out_dir().join("sketches.generated.h");
    run_ok(
        Command::new("cbindgen")
            .args(["--config", "cbindgen.toml", "--quiet", "-o"])
            .arg(&generated)
            .current_dir(workspace().join("ffi")),
    );
    let committed = std::fs::read_to_string(workspace().join("include/sketches.h")).unwrap();
    let fresh = std::fs::read_to_string(&generated).unwrap();
    assert!(committed == fresh, "include/sketches.h is stale: run `make header` and commit it");
    let cargo_version = env!("CARGO_PKG_VERSION");
    assert!(
        committed.contains(&format!("#define SKETCH_VERSION_STRING \"{cargo_version}\"")),
        "SKETCH_VERSION_STRING in ffi/cbindgen.toml must be {cargo_version}"
    );
}

#[test]
fn header_compiles_alone_as_c99_and_cxx() {
    let dir = out_dir();
    let include = workspace().join("include");
    let c_src = dir.join("header_only.c");
    std::fs::write(&c_src, "#include \"sketches.h\"\nint main(void) { return SKETCH_OK; }\n").unwrap();
    run_ok(
        Command::new(c_compiler())
            .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-fsyntax-only", "-I"])
            .arg(&include)
            .arg(&c_src),
    );
    let cxx_src = dir.join("header_only.cpp");
    std::fs::write(&cxx_src, "#include \"sketches.h\"\nint main() { return SKETCH_OK; }\n").unwrap();
    for std in ["-std=c++11", "-std=c++17"] {
        run_ok(
            Command::new(cxx_compiler())
                .args([std, "-Wall", "-Wextra", "-Werror", "-pedantic", "-fsyntax-only", "-I"])
                .arg(&include)
                .arg(&cxx_src),
        );
    }
}

#[test]
fn cpp_wrapper_compiles_alone_as_cxx17_and_cxx20_with_and_without_exceptions() {
    let dir = out_dir();
    let include = workspace().join("include");
    let src = dir.join("hpp_only.cpp");
    std::fs::write(
        &src,
        "#include \"sketches.hpp\"\nint main() { return sketches::image_align == 64 ? 0 : 1; }\n",
    )
    .unwrap();
    for std in ["-std=c++17", "-std=c++20"] {
        for exceptions in ["-fexceptions", "-fno-exceptions"] {
            run_ok(
                Command::new(cxx_compiler())
                    .args([std, exceptions, "-Wall", "-Wextra", "-Werror", "-pedantic", "-Wconversion"])
                    .args(["-Wsign-conversion", "-Wshadow", "-Wold-style-cast", "-fsyntax-only", "-I"])
                    .arg(&include)
                    .arg(&src),
            );
        }
    }
    // Header-only over the C header and the standard library alone.
    let text = std::fs::read_to_string(include.join("sketches.hpp")).unwrap();
    for line in text.lines().filter(|l| l.trim_start().starts_with("#include")) {
        let line = line.trim();
        assert!(
            line == "#include \"sketches.h\"" || line.starts_with("#include <"),
            "unexpected include: {line}"
        );
    }
}

#[test]
fn cpp_const_views_refuse_changes_at_compile_time() {
    let dir = out_dir();
    let src = dir.join("hpp_const_view_add.cpp");
    std::fs::write(
        &src,
        "#include \"sketches.hpp\"\n\
         int main() {\n\
             unsigned char buf[64] = {0};\n\
             sketches::bloom_const_view v(buf, sizeof buf);\n\
             return v.try_add(\"x\").ok() ? 0 : 1;\n\
         }\n",
    )
    .unwrap();
    let out = Command::new(cxx_compiler())
        .args(["-std=c++17", "-fsyntax-only", "-I"])
        .arg(workspace().join("include"))
        .arg(&src)
        .output()
        .expect("run the C++ compiler");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "adding through a const view compiled");
    assert!(stderr.contains("not available on a *_const_view"), "{stderr}");
}

/// The thread-safety notes at the top of the header name every function
/// that may run on an image other threads are changing (each `_concurrent`
/// function the header declares), and nothing the header does not declare:
/// a C user picks the calls a thread may make on a shared image from that
/// list.
#[test]
fn thread_safety_notes_list_every_concurrent_function() {
    let header = std::fs::read_to_string(workspace().join("include/sketches.h")).unwrap();
    let start = header.find("Except the concurrent functions").expect("thread-safety notes");
    let end = start + header[start..].find("While any of them runs").expect("end of the list");
    let list = header[start..end].split_once("64-bit words):").map_or("", |(_, l)| l);
    // "sketch_{a,b}_x, _y, _z;" names sketch_a_x, sketch_a_y, ... sketch_b_z.
    let mut listed = std::collections::BTreeSet::new();
    let mut families: Vec<String> = Vec::new();
    for token in list.split(|c: char| c.is_whitespace() || c == ';' || c == '.').filter(|t| !t.is_empty()) {
        let token = token.trim_end_matches(',');
        let suffix = if let Some(rest) = token.strip_prefix("sketch_{") {
            let (names, suffix) = rest.split_once('}').expect("sketch_{families}_name");
            families = names.split(',').map(str::to_owned).collect();
            suffix
        } else if token.starts_with('_') {
            token
        } else {
            continue;
        };
        for family in &families {
            listed.insert(format!("sketch_{family}{suffix}"));
        }
    }
    // Declarations: "sketch_status sketch_x_concurrent(const void *buf," (not comments).
    let declared: std::collections::BTreeSet<String> = header
        .lines()
        .filter(|line| line.starts_with(|c: char| c.is_ascii_alphabetic()))
        .filter_map(|line| line.split_once('(').map(|(head, _)| head))
        .filter_map(|head| head.rsplit(' ').next())
        .filter(|name| name.starts_with("sketch_") && name.contains("_concurrent"))
        .map(str::to_owned)
        .collect();
    assert_eq!(declared.len(), 42, "the header declares 42 concurrent functions: {declared:?}");
    let missing: Vec<_> = declared.difference(&listed).collect();
    let unknown: Vec<_> = listed.difference(&declared).collect();
    assert!(missing.is_empty(), "declared but not in the thread-safety notes: {missing:?}");
    assert!(unknown.is_empty(), "in the thread-safety notes but not declared: {unknown:?}");
}
