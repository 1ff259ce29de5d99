//! The C and C++ examples build with -Wall -Wextra -Werror and do what they say.

use sketches_tests::{compile_c, compile_cxx, run_ok, workspace};
use std::io::Write;
use std::process::{Command, Stdio};

#[test]
fn dedup_prints_each_line_once_and_reports_capacity() {
    let exe = compile_c("dedup", &[workspace().join("c-examples/dedup.c")], &[]);
    // 30,000 distinct lines, each repeated, interleaved; plus an empty line and a long line.
    let mut input = String::new();
    for round in 0..3 {
        for i in 0..30_000 {
            if (i + round) % 3 != 0 {
                input.push_str(&format!("line-{i}\n"));
            }
        }
    }
    input.push('\n');
    input.push_str(&"x".repeat(2_000_000));
    input.push('\n');
    let run = |args: &[&str]| {
        let mut child = Command::new(&exe)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Feed stdin from another thread so a full stdout pipe cannot deadlock us.
        let mut stdin = child.stdin.take().unwrap();
        let data = input.clone().into_bytes();
        let writer = std::thread::spawn(move || stdin.write_all(&data));
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        out
    };
    let out = run(&["-n", "40000", "-p", "0.0001"]);
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    let unique: std::collections::HashSet<&str> = lines.iter().copied().collect();
    assert_eq!(unique.len(), lines.len(), "a line was printed twice");
    // 30,002 distinct lines; at p = 0.01% a few may be dropped as false positives.
    assert!(lines.len() <= 30_002 && lines.len() >= 29_990, "{} lines", lines.len());
    assert_eq!(lines[0], "line-1", "first-seen order is kept");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("lines read 60002"), "{stderr}");
    assert!(stderr.contains("capacity: ok"), "{stderr}");
    // Planned far too small: the over-capacity status is reported.
    let out = run(&["-n", "1000", "-p", "0.01"]);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("OVER CAPACITY"), "{stderr}");
    // Hostile parameters give a clear error.
    let out = Command::new(&exe).args(["-n", "0"]).stdin(Stdio::null()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("sketch parameter out of range"));
    // File input.
    let path = sketches_tests::out_dir().join("dedup-input.txt");
    std::fs::write(&path, "a\nb\na\nc\nb\n").unwrap();
    let out = run_ok(Command::new(&exe).arg(&path));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "a\nb\nc\n");
}

#[test]
fn stand_reproduces_the_article_table() {
    let exe = compile_c("stand", &[workspace().join("c-examples/stand.c")], &[]);
    let out = run_ok(&mut Command::new(exe));
    let text = String::from_utf8(out.stdout).unwrap();
    print!("{text}");
    // Rows: a 52-character label, the article (or exact) column and the
    // sketches column, 14 characters each, then an optional note.
    let row = |label: &str| -> &str {
        text.lines().find(|l| l.trim_start().starts_with(label)).unwrap_or_else(|| panic!("{label}"))
    };
    let column = |line: &str, at: usize| -> String {
        line.get(at..(at + 15).min(line.len())).unwrap_or_else(|| panic!("{line}")).trim().to_string()
    };
    let value = |label: &str| -> f64 {
        let cell = column(row(label), 67);
        cell.trim_end_matches('%').trim_end_matches('x').trim_end_matches("KB").trim().parse().unwrap()
    };
    // Numeric columns hold numbers (or '-' where the article has none).
    let table_rows = text.lines().filter(|l| {
        l.len() > 67 && l.starts_with("  ") && !l.starts_with("     ") && !l.trim_start().starts_with('(')
    });
    for line in table_rows.filter(|l| !l.contains("Mops/s") && !l.contains("Mkeys/s")) {
        for at in [52, 67] {
            let cell = column(line, at);
            let number =
                cell.trim_start_matches(['+', '-']).trim_end_matches(['%', 'x']).trim_end_matches(" KB");
            let number = number.trim_end_matches(" ms").trim_end_matches(" B");
            assert!(
                cell == "-" || cell.is_empty() || number.replace('/', "").parse::<f64>().is_ok(),
                "not a number in a numeric column: {line:?}"
            );
        }
    }
    // Every estimate row of the cardinality and MinHash tables carries its
    // expected error, and this run's draws stay within 5 sd.
    let mut notes = 0;
    for line in text.lines().filter(|l| l.contains("   sd ")) {
        let z: f64 = line.rsplit("z ").next().unwrap().parse().unwrap();
        assert!(z.abs() < 5.0, "{line}");
        notes += 1;
    }
    assert!(notes >= 16, "{notes} rows with an expected error");
    // MinHash rows are told apart by their overlap.
    let minhash: std::collections::HashSet<&str> =
        text.lines().filter(|l| l.starts_with("  k = ")).map(|l| &l[..52]).collect();
    assert_eq!(minhash.len(), 4);
    let measured = value("measured FPR on absent keys");
    assert!((0.8..1.2).contains(&measured), "measured FPR {measured}%");
    assert_eq!(value("false negatives"), 0.0);
    let under = value("planned for n/10, filled with n: measured FPR");
    assert!(under > 99.0, "overfilled FPR {under}%");
    assert_eq!(value("... over-capacity flags after n/10 keys"), 0.0);
    assert_eq!(value("... over-capacity flags after n keys"), 3.0);
    assert!(value("saving") > 10.0);
    // Binary fuse beside Bloom and cuckoo: ~9 bits per key at 2^-8, no
    // false negatives, measured rates within 5 sigma of 2^-8 and 2^-16 on
    // 1M absent keys.
    let bits8 = value("fuse 8-bit: bits per key");
    assert!((8.5..9.5).contains(&bits8), "fuse 8-bit: {bits8} bits per key");
    assert!((17.5..18.5).contains(&value("fuse 16-bit: bits per key")));
    let fpr8 = value("fuse 8-bit: measured FPR");
    assert!((0.36..0.42).contains(&fpr8), "fuse 8-bit FPR {fpr8}%");
    let fpr16 = value("fuse 16-bit: measured FPR");
    assert!(fpr16 < 0.0035, "fuse 16-bit FPR {fpr16}%");
    assert_eq!(value("fuse 8-bit: false negatives") + value("fuse 16-bit: false negatives"), 0.0);
    assert!(value("bits per key: Bloom at 1%") > bits8);
    // ExaLogLog beside HLL and ULL: errors within 4 standard errors (p = 11:
    // martingale 0.70%, maximum likelihood 0.80%), in less memory than ULL.
    for (label, sigma) in [
        ("ELL error at n distinct (martingale estimate)", 0.702),
        ("ELL ... from the registers (maximum likelihood)", 0.800),
        ("ELL error at 10 n distinct (martingale estimate)", 0.702),
        ("ELL ... at 10 n, maximum likelihood", 0.800),
        ("ELL merge of two n/2 halves: error", 0.800),
    ] {
        let error = value(label);
        assert!(error.abs() < 4.0 * sigma, "{label}: {error}%");
    }
    let kb = |label: &str| -> f64 {
        let line =
            text.lines().find(|l| l.trim_start().starts_with(label)).unwrap_or_else(|| panic!("{label}"));
        let words: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(words.last(), Some(&"KB"), "{line}");
        words[words.len() - 2].parse().unwrap()
    };
    assert!(kb("ELL memory") < kb("ULL memory"));
    assert_eq!(value("merged registers == one sketch's"), 1.0);
    assert_eq!(value("... and for ELL (1 = identical)"), 1.0);
    assert!(!text.contains("disagree"), "single and batch calls disagree");
}

#[test]
fn readme_quickstart_example_runs() {
    let exe = compile_c("quickstart", &[workspace().join("c-examples/quickstart.c")], &[]);
    let out = run_ok(&mut Command::new(exe));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "alice new: 1\nalice new again: 0\nbob maybe present: 0\n\
         capacity flags: 0; a 7-byte buffer gives: buffer too small for the sketch image\n"
    );
    // The README shows this very file.
    let readme = std::fs::read_to_string(workspace().join("README.md")).unwrap();
    let source = std::fs::read_to_string(workspace().join("c-examples/quickstart.c")).unwrap();
    assert!(readme.contains(source.trim()), "README.md must embed c-examples/quickstart.c verbatim");
}

#[test]
fn readme_cpp_quickstart_example_runs() {
    let exe = compile_cxx("quickstart_cpp", &[workspace().join("c-examples/quickstart.cpp")], "c++17", &[]);
    let out = run_ok(&mut Command::new(exe));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "alice new: 1\nalice new again: 0\nbob maybe present: 0\ndave, frank maybe present: 1 0\n\
         copy has erin: 1\nread filter has dave: 1\nvisitors: 3\n\
         capacity flags: 0; a 7-byte view gives: buffer too small for the sketch image\n\
         damaged bytes give: bloom: image checksum mismatch (corrupted bytes)\n"
    );
    let readme = std::fs::read_to_string(workspace().join("README.md")).unwrap();
    let source = std::fs::read_to_string(workspace().join("c-examples/quickstart.cpp")).unwrap();
    assert!(readme.contains(source.trim()), "README.md must embed c-examples/quickstart.cpp verbatim");
}

#[test]
fn readme_rust_quickstart_is_the_tested_example() {
    // core/examples/quickstart.rs runs under `cargo test -p sketches-core`
    // (its own test calls main); the README shows it up to that test module.
    let readme = std::fs::read_to_string(workspace().join("README.md")).unwrap();
    let source = std::fs::read_to_string(workspace().join("core/examples/quickstart.rs")).unwrap();
    let shown = source.split("\n#[cfg(test)]").next().unwrap().trim();
    assert!(shown.contains("fn main()"), "the example has a main");
    assert!(
        readme.contains(shown),
        "README.md must embed core/examples/quickstart.rs (up to its tests) verbatim"
    );
}
