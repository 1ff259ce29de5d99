//! The C ABI test programs (tests/c/abi_test.c, and tests/c/fuse_ell_test.c
//! for the binary fuse filter and ExaLogLog) pass, built with -Wall -Wextra
//! -Werror, under AddressSanitizer + UBSan and under valgrind; tests/c/claims_test.c
//! (the documentation's behavioural promises, one check per sentence) under
//! AddressSanitizer + UBSan.

use sketches_tests::{compile_c, have, run_ok, workspace};
use std::process::Command;

fn check_summary(stdout: &[u8]) {
    let text = String::from_utf8_lossy(stdout);
    let line = text.lines().find(|l| l.contains(" passed, ")).expect("summary line");
    assert!(line.ends_with(" 0 failed"), "{line}");
    print!("{text}");
}

#[test]
fn abi_test_passes_under_address_and_undefined_sanitizers() {
    let exe = compile_c(
        "abi_test_asan",
        &[workspace().join("tests/c/abi_test.c")],
        &["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"],
    );
    let out = run_ok(Command::new(exe).env("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1"));
    check_summary(&out.stdout);
}

#[test]
fn abi_test_passes_under_valgrind() {
    assert!(have("valgrind"), "valgrind is required (apt-get install valgrind; .ci/run installs it)");
    let exe = compile_c("abi_test_plain", &[workspace().join("tests/c/abi_test.c")], &[]);
    let out = run_ok(
        Command::new("valgrind")
            .args(["--quiet", "--error-exitcode=3", "--leak-check=full", "--errors-for-leak-kinds=definite"])
            .arg(exe),
    );
    check_summary(&out.stdout);
}

#[test]
fn fuse_ell_test_passes_under_address_and_undefined_sanitizers() {
    let exe = compile_c(
        "fuse_ell_test_asan",
        &[workspace().join("tests/c/fuse_ell_test.c")],
        &["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"],
    );
    let out = run_ok(Command::new(exe).env("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1"));
    check_summary(&out.stdout);
}

#[test]
fn fuse_ell_test_passes_under_valgrind() {
    assert!(have("valgrind"), "valgrind is required (apt-get install valgrind; .ci/run installs it)");
    let exe = compile_c("fuse_ell_test_plain", &[workspace().join("tests/c/fuse_ell_test.c")], &[]);
    let out = run_ok(
        Command::new("valgrind")
            .args(["--quiet", "--error-exitcode=3", "--leak-check=full", "--errors-for-leak-kinds=definite"])
            .arg(exe),
    );
    check_summary(&out.stdout);
}

#[test]
fn documented_claims_hold_under_address_and_undefined_sanitizers() {
    let exe = compile_c(
        "claims_test_asan",
        &[workspace().join("tests/c/claims_test.c")],
        &["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"],
    );
    let out = run_ok(Command::new(exe).env("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1"));
    check_summary(&out.stdout);
}
