//! `make install` as a user meets it: the library, headers, pkg-config file
//! and CMake package installed under a temporary prefix; a C program built
//! with `pkg-config --cflags --libs sketches` that finds libsketches.so.0 at
//! run time through its SONAME; a C++ program found through
//! `find_package(sketches CONFIG)` linking the shared and the static target;
//! and the size of a statically linked Bloom-only program, stripped.

use sketches_tests::{c_compiler, have, library_dir, out_dir, run_ok, workspace};
use std::path::{Path, PathBuf};
use std::process::Command;

fn install(prefix: &Path) {
    let _ = std::fs::remove_dir_all(prefix);
    run_ok(
        Command::new(workspace().join("scripts/install.sh"))
            .arg(prefix)
            .env("SKETCHES_BUILD_DIR", library_dir())
            .current_dir(workspace()),
    );
}

fn prefix(name: &str) -> PathBuf {
    out_dir().join(name)
}

#[test]
fn installed_library_links_with_pkg_config_and_resolves_its_soname() {
    assert!(have("pkg-config"), "pkg-config is required (.ci/run installs it)");
    let prefix = prefix("install-pkgconfig");
    install(&prefix);
    let lib = prefix.join("lib");
    for f in [
        "libsketches.a",
        "libsketches.so",
        "libsketches.so.0",
        "libsketches.so.0.1.0",
        "pkgconfig/sketches.pc",
        "pkgconfig/sketches-static.pc",
    ] {
        assert!(lib.join(f).exists(), "{f} not installed");
    }
    assert!(prefix.join("include/sketches.h").exists());
    let pc = |args: &[&str]| {
        let out = run_ok(Command::new("pkg-config").args(args).env("PKG_CONFIG_PATH", lib.join("pkgconfig")));
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    };
    assert_eq!(pc(&["--modversion", "sketches"]), env!("CARGO_PKG_VERSION"));
    // The static variant (the Go binding's sketches_static tag) names the archive.
    assert!(pc(&["--libs", "sketches-static"]).ends_with("/lib/libsketches.a"));
    let flags = pc(&["--cflags", "--libs", "sketches"]);
    let exe = out_dir().join("quickstart-pkgconfig");
    let mut cc = Command::new(c_compiler());
    cc.args(["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-pedantic"])
        .arg(workspace().join("c-examples/quickstart.c"))
        .args(flags.split_whitespace())
        .arg("-o")
        .arg(&exe);
    run_ok(&mut cc);
    // The binary names the versioned library, which the loader finds in the prefix.
    let dynamic = run_ok(Command::new("readelf").arg("-d").arg(&exe));
    let dynamic = String::from_utf8_lossy(&dynamic.stdout);
    assert!(dynamic.contains("[libsketches.so.0]"), "NEEDED entry:\n{dynamic}");
    let out = run_ok(Command::new(&exe).env("LD_LIBRARY_PATH", &lib));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("alice new: 1") && text.contains("alice new again: 0"), "{text}");
    let soname = run_ok(Command::new("readelf").arg("-d").arg(lib.join("libsketches.so.0.1.0")));
    assert!(String::from_utf8_lossy(&soname.stdout).contains("Library soname: [libsketches.so.0]"));
}

#[test]
fn installed_cmake_package_builds_a_cxx_consumer() {
    assert!(have("cmake"), "cmake is required (.ci/run installs it)");
    let prefix = prefix("install-cmake");
    install(&prefix);
    let build = out_dir().join("cmake-consumer-build");
    let _ = std::fs::remove_dir_all(&build);
    run_ok(
        Command::new("cmake")
            .arg("-S")
            .arg(workspace().join("tests/install/cmake_consumer"))
            .arg("-B")
            .arg(&build)
            .arg(format!("-DCMAKE_PREFIX_PATH={}", prefix.display()))
            .arg("-DCMAKE_BUILD_TYPE=Release"),
    );
    run_ok(Command::new("cmake").arg("--build").arg(&build));
    for exe in ["consumer_shared", "consumer_static"] {
        let out = run_ok(Command::new(build.join(exe)).env("LD_LIBRARY_PATH", prefix.join("lib")));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("key-999 present: 1"), "{exe}: {text}");
    }
}

#[test]
fn a_static_bloom_only_program_stays_small() {
    // The quickstart uses only Bloom calls and sketch_status_str. Linked
    // statically against libsketches.a with unused sections dropped, then
    // stripped: the library adds only what the program calls (no std, no
    // unwinder, no symbolizer). The target is under 32 KiB.
    let exe = out_dir().join("quickstart-static-stripped");
    run_ok(
        Command::new(c_compiler())
            .args(["-std=c11", "-O2", "-Wl,--gc-sections", "-s"])
            .arg("-I")
            .arg(workspace().join("include"))
            .arg(workspace().join("c-examples/quickstart.c"))
            .arg(library_dir().join("libsketches.a"))
            .arg("-o")
            .arg(&exe),
    );
    let size = std::fs::metadata(&exe).unwrap().len();
    println!("static Bloom-only quickstart, stripped: {size} bytes");
    assert!(size < 32 * 1024, "static Bloom-only program is {size} bytes (target < 32 KiB)");
    run_ok(&mut Command::new(&exe));
}
