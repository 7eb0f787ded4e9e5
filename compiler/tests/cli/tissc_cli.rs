//! End-to-end tests of the `tissc` binary on real files in temporary directories.

use tiss_test_support::{stderr, stdout, tissc, workspace};

use serde_json::Value;

const GOOD: &str = r#"#TISS! Language=Python
#TISS_VERSION >= 1.0

TASK "Create and test a simple Python hello world script"

SET_BUDGET RUN_COUNT = 10

STEP "Create the main application file" {
    WRITE "main.py" <<PYTHON
import sys

def main():
    print(f"Hello, {sys.argv[1]}!")

if __name__ == "__main__":
    main()
PYTHON
}

STEP "Run the script and verify its output" {
    RUN "python3 main.py TissLang" TIMEOUT 30s
    ASSERT LAST_RUN.EXIT_CODE == 0
    ASSERT LAST_RUN.STDOUT CONTAINS "Hello, TissLang!"
    ASSERT FILE "main.py" EXISTS
}
"#;

const MISSPELLED: &str = "TASK \"t\"\n\nStep \"a\" {\n    RUN \"make\"\n}\n";

const TWO_ERRORS: &str =
    "TASK \"t\"\n\nSTEP \"a\" {\n    RUN \"make\"\n    ASERT LAST_RUN.EXIT_CODE == 0\n    LOG \"a\\qb\"\n}\n";

#[test]
fn check_valid_plan_exits_0_silently() {
    let dir = workspace(&[("good.tiss", GOOD)]);
    let o = tissc(dir.path(), &["check", "good.tiss"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "");
    assert_eq!(stderr(&o), "");
}

#[test]
fn check_errors_exit_1_rustc_style() {
    let dir = workspace(&[("bad.tiss", MISSPELLED)]);
    let o = tissc(dir.path(), &["check", "bad.tiss"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "");
    let err = stderr(&o);
    assert!(err.starts_with("error[E0101]: "), "{err}");
    assert!(err.contains("  --> bad.tiss:3:1\n"), "{err}");
    assert!(err.contains("3 | Step \"a\" {\n  | ^^^^"), "{err}");
    assert!(err.contains(": `STEP`"), "{err}");
    assert!(err.ends_with("error: could not check `bad.tiss` due to 1 previous error\n"), "{err}");
    assert!(!err.contains('\x1b'), "no color when stderr is not a terminal: {err}");
}

#[test]
fn check_reports_every_error_of_every_file() {
    let dir = workspace(&[("a.tiss", TWO_ERRORS), ("good.tiss", GOOD), ("b.tiss", MISSPELLED)]);
    let o = tissc(dir.path(), &["check", "a.tiss", "good.tiss", "b.tiss"]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("--> a.tiss:5:5"), "{err}");
    assert!(err.contains("--> a.tiss:6:11"), "{err}");
    assert!(err.contains("could not check `a.tiss` due to 2 previous errors"), "{err}");
    assert!(err.contains("--> b.tiss:3:1"), "{err}");
    assert!(err.contains("could not check `b.tiss` due to 1 previous error"), "{err}");
    assert!(!err.contains("good.tiss"), "{err}");
    // Files are reported in command-line order.
    assert!(err.find("a.tiss").unwrap() < err.find("b.tiss").unwrap());

    let o = tissc(dir.path(), &["check", "good.tiss", "good.tiss"]);
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn json_error_format_is_one_object_per_line() {
    let dir = workspace(&[("a.tiss", TWO_ERRORS), ("b.tiss", MISSPELLED)]);
    for args in [
        &["check", "--error-format", "json", "a.tiss", "b.tiss"][..],
        &["--error-format=json", "check", "a.tiss", "b.tiss"][..],
    ] {
        let o = tissc(dir.path(), args);
        assert_eq!(o.status.code(), Some(1));
        assert_eq!(stdout(&o), "");
        let err = stderr(&o);
        let objects: Vec<Value> =
            err.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect();
        let places: Vec<(String, u64, u64)> = objects
            .iter()
            .map(|v| {
                (
                    v["file"].as_str().unwrap().to_string(),
                    v["line"].as_u64().unwrap(),
                    v["column"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            places,
            [("a.tiss".to_string(), 5, 5), ("a.tiss".to_string(), 6, 11), ("b.tiss".to_string(), 3, 1)]
        );
        for v in &objects {
            assert_eq!(v.as_object().unwrap().len(), 9, "{v}");
            assert_eq!(v["severity"], "error");
            assert!(v["code"].as_str().unwrap().starts_with('E'));
            assert!(v["end_line"].is_u64() && v["end_column"].is_u64());
            assert!(v["suggestions"].is_array());
        }
        assert_eq!(objects[2]["suggestions"][0]["replacement"], "STEP");
    }
}

#[test]
fn unreadable_files_are_usage_errors() {
    let dir = workspace(&[("bad.tiss", MISSPELLED), ("good.tiss", GOOD)]);
    let o = tissc(dir.path(), &["check", "missing.tiss"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stderr(&o), "tissc: cannot read `missing.tiss`: No such file or directory\n");

    // The other files are still checked; the usage error decides the status.
    let o = tissc(dir.path(), &["check", "bad.tiss", "missing.tiss", "good.tiss"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("error[E0101]"), "{err}");
    assert!(err.contains("tissc: cannot read `missing.tiss`: No such file or directory"), "{err}");

    let o = tissc(dir.path(), &["parse", "missing.tiss"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stdout(&o), "");

    // A directory is not a plan.
    let o = tissc(dir.path(), &["check", "."]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).starts_with("tissc: cannot read `.`: "), "{}", stderr(&o));
}

#[test]
fn invalid_utf8_is_a_compile_error_not_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("latin1.tiss"), b"TASK \"caf\xE9\"\n").unwrap();
    let o = tissc(dir.path(), &["check", "latin1.tiss"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("error[E0001]"), "{}", stderr(&o));
}

#[test]
fn parse_emits_the_ast_as_json() {
    let dir = workspace(&[("good.tiss", GOOD)]);
    let o = tissc(dir.path(), &["parse", "good.tiss", "--emit", "ast-json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
    let out = stdout(&o);
    let items: Value = serde_json::from_str(&out).expect("stdout is JSON");
    let items = items.as_array().expect("a list of commands");
    let types: Vec<&str> = items.iter().map(|i| i["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["HEADER", "VERSION", "TASK", "SET_BUDGET", "STEP", "STEP"]);
    for item in items {
        let span = &item["span"];
        for key in ["line", "column", "end_line", "end_column"] {
            assert!(span[key].as_u64().is_some_and(|n| n >= 1), "{item}");
        }
    }
    assert_eq!(items[2]["span"]["line"], 4);
    // Statements nest as command objects too.
    let run = &items[5]["body"]["commands"][0];
    assert_eq!(run["type"], "RUN");
    assert_eq!(run["span"]["line"], 21);
    assert_eq!(run["span"]["column"], 5);
    // `--emit ast-json` is the default.
    let o2 = tissc(dir.path(), &["parse", "good.tiss"]);
    assert_eq!(stdout(&o2), out);
}

#[test]
fn parse_with_errors_prints_diagnostics_only() {
    let dir = workspace(&[("bad.tiss", MISSPELLED)]);
    let o = tissc(dir.path(), &["parse", "bad.tiss", "--emit", "ast-json"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "");
    assert!(stderr(&o).contains("error[E0101]"));
    assert!(stderr(&o).contains("could not parse `bad.tiss`"));

    let o = tissc(dir.path(), &["parse", "bad.tiss", "--error-format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "");
    let v: Value = serde_json::from_str(stderr(&o).lines().next().unwrap()).unwrap();
    assert_eq!(v["code"], "E0101");
}

#[test]
fn explain_prints_the_long_explanation() {
    let dir = tempfile::tempdir().unwrap();
    for code in ["E0101", "e0101", "0101"] {
        let o = tissc(dir.path(), &["explain", code]);
        assert_eq!(o.status.code(), Some(0));
        let out = stdout(&o);
        assert!(out.starts_with("# E0101: "), "{out}");
        assert!(out.contains("```tiss"), "{out}");
    }
    for (code, _) in tiss_compiler::diagnostics::codes::ALL {
        let o = tissc(dir.path(), &["explain", code.as_str()]);
        assert_eq!(o.status.code(), Some(0), "{code}");
    }
}

#[test]
fn explain_unknown_code_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let o = tissc(dir.path(), &["explain", "E9999"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stdout(&o), "");
    assert!(stderr(&o).contains("`E9999` is not a TissLang error code"), "{}", stderr(&o));
    assert!(stderr(&o).contains("tissc explain --list"), "{}", stderr(&o));

    // A warning code is called one, and the nearest known codes are listed.
    let o = tissc(dir.path(), &["explain", "W0099"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.starts_with("tissc: `W0099` is not a TissLang warning code; the nearest known:\n  W0009  "),
        "{err}"
    );
    assert!(!err.contains("error code"), "{err}");

    let o = tissc(dir.path(), &["explain"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn explain_list_shows_every_code() {
    let dir = tempfile::tempdir().unwrap();
    let o = tissc(dir.path(), &["explain", "--list"]);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    assert_eq!(out.lines().count(), tiss_compiler::diagnostics::codes::ALL.len());
    assert!(out.lines().any(|l| l.starts_with("E0101  ")), "{out}");
}

#[test]
fn help_and_version() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["--help"][..],
        &["help"][..],
        &["check", "--help"][..],
        &["parse", "--help"][..],
        &["explain", "--help"][..],
        &["help", "check"][..],
    ] {
        let o = tissc(dir.path(), args);
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        assert!(stdout(&o).contains("Usage: tissc"), "{args:?}: {}", stdout(&o));
    }
    let o = tissc(dir.path(), &["check", "--help"]);
    assert!(stdout(&o).contains("--error-format"));
    let o = tissc(dir.path(), &["--version"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).starts_with(concat!("tissc ", env!("CARGO_PKG_VERSION"))), "{}", stdout(&o));
    assert!(stdout(&o).contains("TissLang 1.1.0"), "{}", stdout(&o));
}

#[test]
fn bad_usage_exits_2() {
    let dir = workspace(&[("good.tiss", GOOD)]);
    for args in [
        &[][..],
        &["frobnicate"][..],
        &["check"][..],
        &["check", "--error-format", "xml", "good.tiss"][..],
        &["parse", "good.tiss", "--emit", "tokens"][..],
        &["parse"][..],
        &["check", "--no-such-flag", "good.tiss"][..],
    ] {
        let o = tissc(dir.path(), args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert_eq!(stdout(&o), "", "{args:?}");
        let err = stderr(&o);
        assert!(err.starts_with("error: ") || err.contains("Usage: tissc"), "{args:?}: {err}");
    }
}

#[test]
fn color_only_when_asked_or_on_a_terminal() {
    let dir = workspace(&[("bad.tiss", MISSPELLED)]);
    let o = tissc(dir.path(), &["check", "--color", "always", "bad.tiss"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains('\x1b'), "--color always colors");
    let o = tissc(dir.path(), &["check", "--color", "never", "bad.tiss"]);
    assert!(!stderr(&o).contains('\x1b'));
    // JSON is never colored.
    let o = tissc(dir.path(), &["check", "--color", "always", "--error-format", "json", "bad.tiss"]);
    assert!(!stderr(&o).contains('\x1b'));
}

/// The message for bytecode given where plan source is read (book: cli/tissc.md).
fn bytecode_message(name: &str) -> String {
    format!("tissc: `{name}` is compiled bytecode, not plan source; use `tissc disasm {name}` to read it\n")
}

#[test]
fn bytecode_given_as_source_is_named_not_read_as_text() {
    let dir = workspace(&[("good.tiss", GOOD)]);
    let o = tissc(dir.path(), &["compile", "good.tiss", "-o", "x.tbc"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // The magic decides, not the extension.
    std::fs::copy(dir.path().join("x.tbc"), dir.path().join("disguised.tiss")).unwrap();
    for name in ["x.tbc", "disguised.tiss"] {
        for args in [
            &["check", name][..],
            &["check", "--error-format", "json", name][..],
            &["parse", name][..],
            &["compile", name, "-o", "out.tbc"][..],
        ] {
            let o = tissc(dir.path(), args);
            assert_eq!(o.status.code(), Some(2), "{args:?}");
            assert_eq!(stdout(&o), "", "{args:?}");
            assert_eq!(stderr(&o), bytecode_message(name), "{args:?}");
        }
    }
    assert!(!dir.path().join("out.tbc").exists(), "nothing is compiled from bytecode");
    // The other files are still checked; the usage error decides the status.
    let o = tissc(dir.path(), &["check", "x.tbc", "good.tiss"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stderr(&o), bytecode_message("x.tbc"));
    // A name the shell would split is quoted in the command to run.
    std::fs::copy(dir.path().join("x.tbc"), dir.path().join("my plan.tbc")).unwrap();
    let o = tissc(dir.path(), &["check", "my plan.tbc"]);
    assert_eq!(
        stderr(&o),
        "tissc: `my plan.tbc` is compiled bytecode, not plan source; use `tissc disasm 'my plan.tbc'` to read it\n"
    );
}

#[test]
fn source_is_source_whatever_its_extension() {
    let dir = workspace(&[("plan.tbc", GOOD), ("plan.txt", GOOD)]);
    for name in ["plan.tbc", "plan.txt"] {
        for args in [&["check", name][..], &["parse", name][..], &["compile", name, "-o", "out.tbc"][..]] {
            let o = tissc(dir.path(), args);
            assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        }
    }
    let o = tissc(dir.path(), &["disasm", "out.tbc"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// A file larger than any `.tbc` can be is refused before it is read
/// (issue 16, defect 3): sparse, 300 MB that take no disk.
#[test]
fn disasm_refuses_a_file_larger_than_any_tbc_unread() {
    let dir = workspace(&[("plan.tiss", GOOD)]);
    assert_eq!(tissc(dir.path(), &["compile", "plan.tiss"]).status.code(), Some(0));
    let file = std::fs::File::options().write(true).open(dir.path().join("plan.tbc")).unwrap();
    file.set_len(300_000_000).unwrap();
    let o = tissc(dir.path(), &["disasm", "plan.tbc"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let limit = tisslang::container::MAX_FILE;
    assert_eq!(
        stderr(&o),
        format!(
            "tissc: cannot read `plan.tbc`: TissLang bytecode file too large: 300000000 bytes (the limit is {limit})\n"
        )
    );
}

/// Runs `tissc ARGS PLAN` to its end with stdout to /dev/null; its own
/// peak RSS in MiB and CPU seconds (wait4: this child's figures alone,
/// whatever else the test binary runs).
#[allow(clippy::zombie_processes, reason = "wait4 reaps it: std's wait gives no rusage")]
pub(crate) fn peak_and_cpu(args: &[&str], plan: &std::path::Path) -> (f64, f64) {
    use std::os::unix::process::ExitStatusExt;
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_tissc"))
        .args(args)
        .arg(plan)
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("start tissc parse");
    let mut status = 0;
    // SAFETY: a zeroed rusage is valid for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child, with valid pointers.
    let reaped = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(reaped, child.id() as i32, "wait4: {}", std::io::Error::last_os_error());
    assert!(std::process::ExitStatus::from_raw(status).success(), "tissc {args:?} failed");
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    (usage.ru_maxrss as f64 / 1024.0, seconds(usage.ru_utime) + seconds(usage.ru_stime))
}

/// Issue 30, item 5: one line of many statements. The AST JSON is streamed
/// (the whole tree as a JSON value took 877 MiB for 200,000), and positions
/// on a long line are counted from the last one asked, forward or back
/// (from the line's start, the time grew with the square of the line).
#[test]
fn ast_json_of_one_long_line_streams_in_bounded_memory_and_linear_time() {
    let dir = tempfile::tempdir().unwrap();
    let plan = |n: usize| {
        let path = dir.path().join(format!("line{n}.tiss"));
        std::fs::write(&path, format!("TASK \"t\"\nSTEP \"s\" {{ {} }}\n", vec!["LOG \"x\""; n].join(" ")))
            .unwrap();
        path
    };
    let parse = ["parse", "--emit", "ast-json"];
    let (_, small_cpu) = peak_and_cpu(&parse, &plan(25_000));
    let (peak, large_cpu) = peak_and_cpu(&parse, &plan(100_000));
    // 28 MiB streamed (the debug build); the tree as one value was 445 MiB.
    assert!(peak < 100.0, "tissc parse of 100,000 statements peaked at {peak:.1} MiB");
    // Four times the statements: 4x linear, 16x quadratic.
    let ratio = large_cpu / small_cpu.max(0.001);
    assert!(
        ratio < 7.0,
        "4x the statements took {ratio:.1}x the CPU time ({small_cpu:.2} s, {large_cpu:.2} s)"
    );
}

/// `-o /dev/null` writes into the device: run as root, the atomic rename
/// used to replace `/dev/null` with a regular file, breaking every later
/// `> /dev/null` of the machine.
#[test]
fn compiling_to_dev_null_leaves_the_device_a_device() {
    use std::os::unix::fs::FileTypeExt;
    let dir = workspace(&[("good.tiss", GOOD)]);
    let o = tissc(dir.path(), &["compile", "good.tiss", "-o", "/dev/null"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let meta = std::fs::metadata("/dev/null").unwrap();
    assert!(meta.file_type().is_char_device(), "/dev/null is no longer a device");
    assert_eq!(std::fs::read("/dev/null").unwrap(), b"");
}

/// `-o /dev/stdout` into a pipe (`tissc compile p.tiss -o /dev/stdout |
/// …`), which cannot seek back to the header's checksum: the same bytes as
/// the file, where the encoder used to fail with "Illegal seek" after
/// writing a header without its checksum.
#[test]
fn compiling_into_a_pipe_gives_the_files_bytes() {
    let dir = workspace(&[("good.tiss", GOOD)]);
    let piped = tissc(dir.path(), &["compile", "good.tiss", "-o", "/dev/stdout"]);
    assert_eq!(piped.status.code(), Some(0), "{}", stderr(&piped));
    let o = tissc(dir.path(), &["compile", "good.tiss", "-o", "good.tbc"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(piped.stdout, std::fs::read(dir.path().join("good.tbc")).unwrap());
}
