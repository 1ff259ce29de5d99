//! Panic freedom, proven at build time: libsketches built with the
//! `panic-check` feature has a panic handler that calls a symbol defined
//! nowhere, and the shared library is linked with `-z defs` (no undefined
//! symbols allowed). If any exported function could reach a panic after
//! optimization (the release profile: fat LTO), the handler would be
//! referenced and the link would fail. A canary build with one planted
//! reachable panic shows the check is live. On failure,
//! `scripts/panic-paths.py target/release/libsketches.so` names the
//! exported functions and their call chains.

use sketches_tests::workspace;
use std::process::Command;

fn build(features: &str) -> std::process::Output {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    Command::new(cargo)
        .args(["build", "--release", "-p", "sketches-clib", "--features", features, "--target-dir"])
        .arg(workspace().join("target").join("panic-check"))
        .current_dir(workspace())
        .output()
        .expect("run cargo build")
}

#[test]
fn no_exported_function_can_reach_a_panic() {
    let out = build("panic-check");
    assert!(
        out.status.success(),
        "a panic path is reachable from an exported function (run scripts/panic-paths.py on a \
         release build to see which):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The canary: one planted reachable panic must break the same link.
    let out = build("panic-check,panic-canary");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the panic check did not catch the planted panic");
    assert!(
        stderr.contains("sketches_panic_is_reachable_from_an_exported_function"),
        "the canary build failed for another reason:\n{stderr}"
    );
}
