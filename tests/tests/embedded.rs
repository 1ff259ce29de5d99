//! The C ABI on a microcontroller target (thumbv7em-none-eabihf, Cortex-M4F):
//! libsketches built as a static library without std, then, with the cross
//! toolchain `arm-none-eabi-gcc` (Debian's gcc-arm-none-eabi, installed by
//! scripts/install-test-tools.sh):
//! * per family, a link that keeps only that family's exported functions
//!   (`-u` roots, `--gc-sections`) and reports its text and read-only data;
//! * c-examples/firmware.c (static buffers, no heap) compiled and linked for
//!   the target, with its size reported;
//! * the same example built and run on the host.
//!
//! The target library is built with the `panic-check` feature: its panic
//! handler calls a symbol defined nowhere, so each of these links also
//! proves, for this target's code generation, that no exported function of
//! the family can reach a panic. The proof covers the release profile as
//! shipped (opt-level 3, fat LTO) and the size-optimized rebuilds a firmware
//! project may choose (`CARGO_PROFILE_RELEASE_OPT_LEVEL=s` or `z`), where
//! less inlining leaves more checks for LLVM to keep: the whole library is
//! linked at both levels too.

use sketches_tests::{build_clib_at, compile_c, have, out_dir, run_ok, workspace};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

const TARGET: &str = "thumbv7em-none-eabihf";
/// Code generation flags matching the Rust target (hard-float Cortex-M4F).
const CPU_FLAGS: [&str; 4] = ["-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16"];

fn target_library() -> PathBuf {
    target_library_at("3")
}

/// The target library built at `opt_level` (the release profile's "3", or
/// "s" / "z"), each in its own target directory.
fn target_library_at(opt_level: &str) -> PathBuf {
    let (dir, out) = build_clib_at("embedded", opt_level, &["--features", "panic-check", "--target", TARGET]);
    assert!(
        out.status.success(),
        "building libsketches for {TARGET} failed (scripts/install-test-tools.sh adds the target):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir.join(TARGET).join("release").join("libsketches.a")
}

fn require(tool: &str) {
    assert!(have(tool), "{tool} is required (scripts/install-test-tools.sh installs gcc-arm-none-eabi)");
}

/// The exported functions the header declares, grouped by family prefix
/// (`sketch_bloom_add` -> `bloom`); functions of no family (`sketch_hash`,
/// `sketch_status_str`, ...) under "common".
fn exported_functions() -> BTreeMap<String, Vec<String>> {
    let header = std::fs::read_to_string(workspace().join("include/sketches.h")).unwrap();
    let families =
        ["bloom", "sbbf", "counting", "cuckoo", "fuse", "hll", "ull", "ell", "countmin", "topk", "minhash"];
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in header.lines() {
        // Declarations: "sketch_status sketch_bloom_add(void *buf," and similar.
        let Some(open) = line.find('(') else { continue };
        let Some(name) = line[..open].split_whitespace().last() else { continue };
        let name = name.trim_start_matches('*');
        if !name.starts_with("sketch_") || line.trim_start().starts_with("*") || line.contains("#define") {
            continue;
        }
        let rest = &name["sketch_".len()..];
        let family = families
            .iter()
            .find(|f| rest.starts_with(&format!("{f}_")))
            .map_or("common".to_string(), |f| f.to_string());
        out.entry(family).or_default().push(name.to_string());
    }
    out
}

/// Text (executable) and read-only data bytes of an ELF file, from
/// `arm-none-eabi-size -A`.
fn section_sizes(elf: &PathBuf) -> (u64, u64) {
    let out = run_ok(Command::new("arm-none-eabi-size").arg("-A").arg(elf));
    let (mut text, mut rodata) = (0, 0);
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.len() < 2 {
            continue;
        }
        let Ok(size) = words[1].parse::<u64>() else { continue };
        if words[0].starts_with(".text") {
            text += size;
        } else if words[0].starts_with(".rodata") {
            rodata += size;
        }
    }
    (text, rodata)
}

fn link(name: &str, objects: &[PathBuf], roots: &[String], library: &PathBuf) -> PathBuf {
    let elf = out_dir().join(format!("embedded-{name}.elf"));
    let mut cmd = Command::new("arm-none-eabi-gcc");
    cmd.args(CPU_FLAGS).args(["-nostdlib", "-nostartfiles", "-Wl,--gc-sections"]);
    // The first root is the entry point; every root is kept.
    cmd.arg(format!("-Wl,-e,{}", roots[0]));
    for root in roots {
        cmd.arg(format!("-Wl,-u,{root}"));
    }
    cmd.args(objects).arg(library).arg("-lgcc").arg("-o").arg(&elf);
    let out = cmd.output().expect("run arm-none-eabi-gcc");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "linking {name} for {TARGET} failed{}:\n{stderr}",
        if stderr.contains("sketches_panic_is_reachable") { " (a panic path is reachable)" } else { "" }
    );
    elf
}

#[test]
fn every_family_links_for_a_cortex_m4_without_std_and_without_panics() {
    require("arm-none-eabi-gcc");
    require("arm-none-eabi-size");
    let library = target_library();
    let functions = exported_functions();
    assert!(functions.len() >= 12, "{:?}", functions.keys());
    println!("thumbv7em-none-eabihf (Cortex-M4F), release, per family (all its exported functions):");
    println!("{:<10} {:>9} {:>10} {:>12}", "family", "functions", "text (B)", "rodata (B)");
    let mut total_text = 0;
    for (family, names) in &functions {
        let elf = link(family, &[], names, &library);
        let (text, rodata) = section_sizes(&elf);
        println!("{family:<10} {:>9} {text:>10} {rodata:>12}", names.len());
        assert!(text > 0, "{family}: nothing linked");
        // A family's whole API (every single, token, view, batch and
        // concurrent form, merge, export with its XXH3 checksum, the
        // estimators' soft double-precision math) fits an 84 KiB flash
        // budget (72 KiB before the seven `_view` forms, 80 KiB before every
        // output was checked against the image it would land in: +0.3 to
        // +1.6 KB per family); a firmware links only the calls it makes
        // (firmware.c: ~34 KB). The largest is split-block (80.2 KiB): both
        // modes' hashing in each of its 62 functions.
        // Sharing the single-key bodies between the plain and token forms
        // through out-of-line helpers saved 5 KB but made both calls 2-3x
        // slower on the host, so each form keeps its own inlined copy.
        assert!(text < 84 * 1024, "{family}: {text} bytes of text");
        total_text += text;
    }
    let all: Vec<String> = functions.values().flatten().cloned().collect();
    let (text, rodata) = section_sizes(&link("all", &[], &all, &library));
    println!("{:<10} {:>9} {text:>10} {rodata:>12}", "all", all.len());
    // Families share code (hashing, image headers): the whole library is
    // smaller than the sum of its families.
    assert!(text <= total_text, "{text} > {total_text}");
}

#[test]
fn size_optimized_builds_link_without_panics_too() {
    require("arm-none-eabi-gcc");
    require("arm-none-eabi-size");
    let all: Vec<String> = exported_functions().into_values().flatten().collect();
    for opt_level in ["s", "z"] {
        let library = target_library_at(opt_level);
        let (text, rodata) = section_sizes(&link(&format!("all-opt-{opt_level}"), &[], &all, &library));
        println!(
            "{TARGET}, opt-level {opt_level:?}, every exported function: text {text} B, rodata {rodata} B"
        );
        assert!(text > 0);
    }
}

#[test]
fn the_firmware_example_builds_for_the_target_and_runs_on_the_host() {
    require("arm-none-eabi-gcc");
    let library = target_library();
    let object = out_dir().join("firmware-thumbv7em.o");
    run_ok(
        Command::new("arm-none-eabi-gcc")
            .args(CPU_FLAGS)
            .args(["-std=c11", "-Os", "-ffreestanding", "-ffunction-sections", "-fdata-sections"])
            .args(["-Wall", "-Wextra", "-Werror", "-pedantic", "-c"])
            .arg("-I")
            .arg(workspace().join("include"))
            .arg(workspace().join("c-examples/firmware.c"))
            .arg("-o")
            .arg(&object),
    );
    let elf = link("firmware", &[object], &["firmware_entry".to_string()], &library);
    let (text, rodata) = section_sizes(&elf);
    println!("c-examples/firmware.c (Bloom + HyperLogLog, static buffers) for {TARGET}: {text} B text, {rodata} B rodata");
    assert!(text < 40 * 1024, "firmware example: {text} bytes of text");
    // Static buffers only: the images are in .bss, nothing else is needed.
    let exe =
        compile_c("firmware-host", &[workspace().join("c-examples/firmware.c")], &["-DFIRMWARE_HOST_DEMO"]);
    let out = run_ok(&mut Command::new(exe));
    let text = String::from_utf8_lossy(&out.stdout);
    let firsts: u32 =
        text.split("first reports: ").nth(1).and_then(|s| s.split(',').next()).unwrap().parse().unwrap();
    // 1,500 ids seen three times: each first report once, a few lost to false positives.
    assert!((1_470..=1_500).contains(&firsts), "{text}");
    assert!(text.contains("repeats: ") && text.contains("export: "), "{text}");
}
