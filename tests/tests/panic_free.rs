//! Panic freedom, proven at build time: libsketches built with the
//! `panic-check` feature has a panic handler that calls a symbol defined
//! nowhere, and the shared library is linked with `-z defs` (no undefined
//! symbols allowed). If any exported function could reach a panic after
//! optimization (the release profile: fat LTO), the handler would be
//! referenced and the link would fail. The proof is made at the shipped
//! opt-level 3 and again at "s" and "z" (less inlining: checks that level 3
//! removes can stay). A canary build with one planted reachable panic shows
//! the check is live. On failure, `scripts/panic-paths.py
//! target/release/libsketches.so` names the exported functions and their
//! call chains.

use sketches_tests::build_clib_at;

fn build(features: &str, opt_level: &str) -> std::process::Output {
    build_clib_at("panic-check", opt_level, &["--features", features]).1
}

#[test]
fn no_exported_function_can_reach_a_panic() {
    for opt_level in ["3", "s", "z"] {
        let out = build("panic-check", opt_level);
        assert!(
            out.status.success(),
            "at opt-level {opt_level:?} a panic path is reachable from an exported function (run \
             scripts/panic-paths.py on a release build at that level to see which):\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // The canary: one planted reachable panic must break the same link.
    let out = build("panic-check,panic-canary", "3");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the panic check did not catch the planted panic");
    assert!(
        stderr.contains("sketches_panic_is_reachable_from_an_exported_function"),
        "the canary build failed for another reason:\n{stderr}"
    );
}
