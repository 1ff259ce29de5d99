//! Concurrent adds through the C ABI (tests/c/concurrent_test.c): 8 threads
//! on one image of each family, compared with the same adds made one at a
//! time; built with -Wall -Wextra -Werror, run plain and under
//! ThreadSanitizer (which checks the C side's threads and memory; the
//! library's own accesses are atomic operations on the image).

use sketches_tests::{compile_c, run_ok, workspace};
use std::process::Command;

fn check(stdout: &[u8]) {
    let text = String::from_utf8_lossy(stdout);
    let line = text.lines().find(|l| l.contains(" passed, ")).expect("summary line");
    assert!(line.ends_with(" 0 failed"), "{line}");
    print!("{text}");
}

#[test]
fn concurrent_adds_equal_sequential_adds() {
    let exe = compile_c("concurrent_test", &[workspace().join("tests/c/concurrent_test.c")], &["-pthread"]);
    check(&run_ok(&mut Command::new(exe)).stdout);
}

#[test]
fn concurrent_adds_under_thread_sanitizer() {
    let exe = compile_c(
        "concurrent_test_tsan",
        &[workspace().join("tests/c/concurrent_test.c")],
        &["-pthread", "-fsanitize=thread", "-O1"],
    );
    check(&run_ok(Command::new(exe).env("TSAN_OPTIONS", "halt_on_error=1")).stdout);
}
