//! The committed header is exactly what the pinned cbindgen generates, and
//! it compiles alone as C99 and as C++ with warnings as errors.

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
