//! Bounded stack: no exported function uses more than 1 KiB of stack on
//! x86-64 on any path. A nightly rustc emits each function's frame size
//! (`-Z emit-stack-sizes`) into the release library; `scripts/stack-sizes.py`
//! adds them up along the deepest call chain of every exported function,
//! from the disassembly's call graph (an indirect call or a recursion
//! would make a bound unknown and fail the test), and prints the worst
//! function of each family.

use sketches_tests::{run_ok, workspace};
use std::process::Command;

#[test]
fn every_exported_function_stays_within_1_kib_of_stack() {
    let target = workspace().join("target").join("stack-sizes");
    let build = Command::new("cargo")
        .args(["+nightly", "build", "--release", "-p", "sketches-clib", "--target-dir"])
        .arg(&target)
        .env("RUSTFLAGS", "-Z emit-stack-sizes")
        .env_remove("RUSTC")
        .env_remove("CARGO")
        .current_dir(workspace())
        .output()
        .expect("run cargo +nightly (rustup toolchain install nightly; .ci/run installs it)");
    assert!(build.status.success(), "nightly build failed:\n{}", String::from_utf8_lossy(&build.stderr));
    let out = run_ok(
        Command::new("python3")
            .arg(workspace().join("scripts/stack-sizes.py"))
            .arg(target.join("release/libsketches.so"))
            .args(["--limit", "1024", "--families"]),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let families = text.split("worst per family:").nth(1).unwrap_or("");
    println!("worst stack per family (bytes):{families}");
}
