//! Helpers for the cross-language tests: build `libsketches`, compile C and
//! C++ programs against it, run them.
//!
//! The library is built by a nested `cargo build --release -p sketches-clib`
//! in its own target directory (`target/c-abi`), so the C tests always link
//! the current sources whatever profile the outer `cargo test` uses.
//!
//! The C and C++ programs are built for the target the tests themselves are
//! built for: under `cargo test --target i686-unknown-linux-gnu` (`make
//! test-32`) the library is built for that triple and the programs with
//! `-m32` (gcc-multilib), so a 32-bit `size_t` meets a 32-bit library.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace root").to_path_buf()
}

/// The Rust target triple these tests were built for, when it is not the
/// host's (`cargo test --target ...`); `None` for a native build.
pub fn cross_target() -> Option<&'static str> {
    let (target, host) = (env!("SKETCHES_TESTS_TARGET"), env!("SKETCHES_TESTS_HOST"));
    (target != host).then_some(target)
}

/// C and C++ compiler flags selecting the target the tests were built for:
/// `-m32` for 32-bit x86 (i686 / i586 test binaries on an x86-64 host), none
/// for a native build.
pub fn target_cflags() -> &'static [&'static str] {
    if cfg!(target_arch = "x86") {
        &["-m32"]
    } else {
        &[]
    }
}

/// Builds the static and shared library once per test process, for the
/// tests' own target ([`cross_target`]), and returns the directory holding
/// `libsketches.a` / `libsketches.so`.
pub fn library_dir() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let root = workspace();
        let target = root.join("target").join("c-abi");
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut build = Command::new(cargo);
        build.args(["build", "--release", "-p", "sketches-clib", "--target-dir"]).arg(&target);
        if let Some(triple) = cross_target() {
            build.args(["--target", triple]);
        }
        let status = build.current_dir(&root).status().expect("run cargo build for sketches-clib");
        assert!(status.success(), "building libsketches failed");
        match cross_target() {
            Some(triple) => target.join(triple).join("release"),
            None => target.join("release"),
        }
    })
    .clone()
}

/// Runs `cargo build --release -p sketches-clib` with `args` at
/// `opt_level` (the release profile's "3", or "s" / "z" through
/// `CARGO_PROFILE_RELEASE_OPT_LEVEL`), in the target directory
/// `target/<name>` (level 3) or `target/<name>-opt-<level>`, and returns
/// that directory and the build's output (the caller checks the status).
pub fn build_clib_at(name: &str, opt_level: &str, args: &[&str]) -> (PathBuf, Output) {
    let dir = workspace().join("target").join(if opt_level == "3" {
        name.to_string()
    } else {
        format!("{name}-opt-{opt_level}")
    });
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["build", "--release", "-p", "sketches-clib"])
        .args(args)
        .arg("--target-dir")
        .arg(&dir)
        .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", opt_level)
        .current_dir(workspace())
        .output()
        .expect("run cargo build for sketches-clib");
    (dir, out)
}

/// The C compiler: `$CC` or `cc`.
pub fn c_compiler() -> String {
    std::env::var("CC").unwrap_or_else(|_| "cc".into())
}

/// The C++ compiler: `$CXX` or `c++`.
pub fn cxx_compiler() -> String {
    std::env::var("CXX").unwrap_or_else(|_| "c++".into())
}

/// Where test binaries go: `target/c-tests`, or `target/c-tests/<triple>`
/// for a [`cross_target`] build (a 32-bit and a native run never share one).
pub fn out_dir() -> PathBuf {
    let base = workspace().join("target").join("c-tests");
    let dir = cross_target().map_or_else(|| base.clone(), |triple| base.join(triple));
    std::fs::create_dir_all(&dir).expect("create target/c-tests");
    dir
}

/// Compiles C sources into an executable linked statically with
/// libsketches, with `-Wall -Wextra -Werror`, the [`target_cflags`] and the
/// given extra flags.
pub fn compile_c(name: &str, sources: &[PathBuf], extra: &[&str]) -> PathBuf {
    let lib = library_dir();
    let exe = out_dir().join(name);
    let output = Command::new(c_compiler())
        .args(["-std=c11", "-O2", "-g", "-Wall", "-Wextra", "-Werror", "-pedantic"])
        .args(target_cflags())
        .args(extra)
        .arg("-I")
        .arg(workspace().join("include"))
        .args(sources)
        .arg(lib.join("libsketches.a"))
        .args(["-lpthread", "-ldl", "-lm"])
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("run the C compiler");
    assert!(output.status.success(), "compiling {name} failed:\n{}", String::from_utf8_lossy(&output.stderr));
    exe
}

/// Compiles C++ sources (`std` is for example `"c++17"`) into an executable
/// linked statically with libsketches, with `-Wall -Wextra -Werror
/// -pedantic` plus conversion and shadowing warnings, the [`target_cflags`]
/// and the given extra flags. Debug information is line tables only
/// (`-g1`: sanitizer and debugger backtraces keep files and lines): full
/// `-g` over the template-heavy wrapper doubled the compile time of each
/// build (`-O2`: 139 s against 95 s; ASan + UBSan at `-O1`: 677 s against
/// 293 s, on a loaded VM), and the C++ tests build the wrapper six times.
pub fn compile_cxx(name: &str, sources: &[PathBuf], std: &str, extra: &[&str]) -> PathBuf {
    let lib = library_dir();
    let exe = out_dir().join(name);
    let output = Command::new(cxx_compiler())
        .arg(format!("-std={std}"))
        .args(["-O2", "-g1", "-Wall", "-Wextra", "-Werror", "-pedantic"])
        .args(["-Wconversion", "-Wsign-conversion", "-Wshadow", "-Wold-style-cast"])
        .args(target_cflags())
        .args(extra)
        .arg("-I")
        .arg(workspace().join("include"))
        .args(sources)
        .arg(lib.join("libsketches.a"))
        .args(["-lpthread", "-ldl", "-lm"])
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("run the C++ compiler");
    assert!(output.status.success(), "compiling {name} failed:\n{}", String::from_utf8_lossy(&output.stderr));
    exe
}

/// Runs a command and returns its output, failing the test with its
/// stdout/stderr when it exits non-zero.
pub fn run_ok(cmd: &mut Command) -> Output {
    let output = cmd.output().expect("spawn");
    assert!(
        output.status.success(),
        "{cmd:?} failed ({}):\nstdout:\n{}\nstderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// True when `program --version` runs.
pub fn have(program: &str) -> bool {
    Command::new(program).arg("--version").output().map(|o| o.status.success()).unwrap_or(false)
}
