//! Tells the helpers in `src/lib.rs` which target the tests are built for
//! and which host builds them, so that `cargo test --target
//! i686-unknown-linux-gnu` builds libsketches and the C and C++ test
//! programs for that same 32-bit target (`make test-32`).
fn main() {
    for var in ["TARGET", "HOST"] {
        let value = std::env::var(var).unwrap_or_default();
        println!("cargo:rustc-env=SKETCHES_TESTS_{var}={value}");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
