//! End-to-end tests of the `tissvm` binary on real files in temporary directories.

use std::path::Path;
use std::process::Output;

const GOOD: &str = r#"TASK "Say hello"

STEP "Run" {
    RUN "echo hello" TIMEOUT 5s
    ASSERT LAST_RUN.STDOUT CONTAINS "hello"
}
"#;

const BAD: &str = "TASK \"t\"\n\nStep \"a\" {\n    RUN \"make\"\n}\n";

fn tissvm(dir: &Path, args: &[&str]) -> Output {
    crate::common::command().args(args).current_dir(dir).env_remove("NO_COLOR").output().expect("run tissvm")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("stderr is UTF-8")
}

/// A temporary directory with `plan.tiss` and `plan.tbc` compiled from it as
/// `tissc compile --embed-source` would (source embedded under its file name).
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("plan.tiss"), GOOD).unwrap();
    let Ok((mut module, _)) = tiss_compiler::compile("plan.tiss", GOOD.as_bytes(), Default::default()) else {
        panic!("the test plan compiles");
    };
    if let tisslang::module::Source::Embedded { name, .. } = &mut module.source {
        *name = "plan.tiss".to_string();
    }
    std::fs::write(dir.path().join("plan.tbc"), tisslang::container::encode(&module)).unwrap();
    dir
}

#[test]
fn disasm_of_bytecode() {
    let dir = workspace();
    let o = tissvm(dir.path(), &["disasm", "plan.tbc"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
    let out = stdout(&o);
    let module = tisslang::container::load(&std::fs::read(dir.path().join("plan.tbc")).unwrap()).unwrap();
    assert_eq!(out, tisslang::disasm::disassemble(&module, &tisslang::container::content_hash(&module)));
    assert!(out.starts_with("; TissLang bytecode listing\ntask      \"Say hello\"\n"), "{out}");
    assert!(out.contains("       4 |     RUN \"echo hello\" TIMEOUT 5s\n"), "{out}");
}

#[test]
fn disasm_of_source_compiles_in_memory() {
    let dir = workspace();
    let from_source = tissvm(dir.path(), &["disasm", "plan.tiss"]);
    assert_eq!(from_source.status.code(), Some(0), "{}", stderr(&from_source));
    assert_eq!(stderr(&from_source), "");
    let from_bytecode = tissvm(dir.path(), &["disasm", "plan.tbc"]);
    assert_eq!(stdout(&from_source), stdout(&from_bytecode));
    // Nothing is written next to the plan.
    let mut names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["plan.tbc", "plan.tiss"]);
}

#[test]
fn a_plan_that_does_not_compile_exits_2_with_diagnostics() {
    let dir = workspace();
    std::fs::write(dir.path().join("bad.tiss"), BAD).unwrap();
    let o = tissvm(dir.path(), &["disasm", "bad.tiss"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stdout(&o), "");
    let err = stderr(&o);
    assert!(err.starts_with("error[E0101]: "), "{err}");
    assert!(err.contains("  --> bad.tiss:3:1\n"), "{err}");
    assert!(err.ends_with("error: could not compile `bad.tiss` due to 1 previous error\n"), "{err}");

    let o = tissvm(dir.path(), &["disasm", "--error-format", "json", "bad.tiss"]);
    assert_eq!(o.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_str(stderr(&o).lines().next().unwrap()).unwrap();
    assert_eq!(v["code"], "E0101");
    assert_eq!(v["line"], 3);
}

#[test]
fn invalid_bytecode_exits_2() {
    let dir = workspace();
    let good = std::fs::read(dir.path().join("plan.tbc")).unwrap();
    let mut corrupt = good.clone();
    let last = corrupt.len() - 1;
    corrupt[last] ^= 1;
    std::fs::write(dir.path().join("corrupt.tbc"), corrupt).unwrap();
    std::fs::write(dir.path().join("truncated.tbc"), &good[..good.len() - 3]).unwrap();
    for (file, expect) in [("corrupt.tbc", "checksum"), ("truncated.tbc", "truncated")] {
        let o = tissvm(dir.path(), &["disasm", file]);
        assert_eq!(o.status.code(), Some(2), "{file}");
        assert_eq!(stdout(&o), "", "{file}");
        let err = stderr(&o);
        assert!(err.starts_with(&format!("tissvm: {file}: ")), "{file}: {err}");
        assert!(err.contains(expect), "{file}: {err}");
    }
    let o = tissvm(dir.path(), &["disasm", "missing.tbc"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stderr(&o), "tissvm: cannot read `missing.tbc`: No such file or directory\n");
}

#[test]
fn help_is_honest_and_usage_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    for args in
        [&["--help"][..], &["-h"][..], &["help"][..], &["disasm", "--help"][..], &["help", "disasm"][..]]
    {
        let o = tissvm(dir.path(), args);
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        assert!(stdout(&o).contains("Usage: tissvm"), "{args:?}: {}", stdout(&o));
    }
    let o = tissvm(dir.path(), &["--help"]);
    let help = stdout(&o);
    assert!(help.contains("disasm"), "{help}");
    assert!(help.contains("static cost bounds without running it (`estimate`)"), "{help}");
    // No subcommand that does not exist yet is offered as one.
    let commands = help.split("Commands:").nth(1).unwrap().split("Options:").next().unwrap();
    let listed: Vec<&str> = commands.lines().filter_map(|l| l.split_whitespace().next()).collect();
    assert_eq!(
        listed,
        [
            "run",
            "resume",
            "replay",
            "inspect",
            "disasm",
            "estimate",
            "debug",
            "dap",
            "mcp",
            "providers",
            "collect",
            "slurm",
            "completions",
            "man",
            "help"
        ],
        "{help}"
    );

    let o = tissvm(dir.path(), &["--version"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("TissLang 1.1.0"), "{}", stdout(&o));

    for args in [&[][..], &["run", "x.tbc"][..], &["disasm"][..], &["disasm", "a", "b"][..]] {
        let o = tissvm(dir.path(), args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert_eq!(stdout(&o), "", "{args:?}");
    }
}

/// book: cli/tissvm.md: "A file given as a plan is source unless it starts with the
/// `.tbc` magic, whatever its extension" — for every subcommand that takes
/// a PLAN (`run`, `inspect`, `disasm`, `estimate`, `debug`, `resume --plan`).
#[test]
fn a_plan_is_source_or_bytecode_by_its_content_whatever_its_name() {
    let dir = workspace();
    let source = std::fs::read(dir.path().join("plan.tiss")).unwrap();
    let bytecode = std::fs::read(dir.path().join("plan.tbc")).unwrap();
    // Source under other names, bytecode under other names, and source named `.tbc`.
    for (name, bytes) in [
        ("plan.txt", &source),
        ("Planfile", &source),
        ("source.tbc", &source),
        ("plan.bin", &bytecode),
        ("compiled", &bytecode),
        ("bytecode.tiss", &bytecode),
    ] {
        std::fs::write(dir.path().join(name), bytes).unwrap();
        let ws = dir.path().to_str().unwrap();
        for args in [
            &["run", name, "--workdir", ws][..],
            &["run", name, "--dry-run"][..],
            &["inspect", name][..],
            &["disasm", name][..],
            &["estimate", name][..],
        ] {
            let o = tissvm(dir.path(), args);
            assert_eq!(o.status.code(), Some(0), "{args:?}\n{}", stderr(&o));
        }
        let o = tissvm_with_input(dir.path(), &["debug", name], "continue\n");
        assert_eq!(o.status.code(), Some(0), "debug {name}\n{}", stderr(&o));
        assert!(stdout(&o).contains("the plan ended: passed"), "debug {name}\n{}", stdout(&o));
    }
    // The listing of the source named `.tbc` is the one of the real `.tbc`
    // but for the source's file name.
    let from_txt = stdout(&tissvm(dir.path(), &["disasm", "plan.txt"]));
    let from_tbc = stdout(&tissvm(dir.path(), &["disasm", "plan.tbc"]));
    assert_eq!(from_txt.replace("plan.txt", "plan.tiss"), from_tbc);
}

#[test]
fn resume_plan_is_source_or_bytecode_by_its_content() {
    let dir = workspace();
    let pausing = "TASK \"Wait\"\nSTEP \"s\" {\n    PAUSE \"p\"\n    RUN \"echo done\"\n}\n";
    std::fs::write(dir.path().join("pausing.txt"), pausing).unwrap();
    let ws = dir.path().to_str().unwrap();
    let o = tissvm(dir.path(), &["run", "pausing.txt", "--workdir", ws, "--non-interactive"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let snap = dir.path().join(".tiss/wait-1.snap");
    assert!(snap.is_file(), "{}", stderr(&o));
    let Ok((module, _)) = tiss_compiler::compile("pausing.txt", pausing.as_bytes(), Default::default())
    else {
        panic!("the test plan compiles");
    };
    std::fs::write(dir.path().join("pausing.bin"), tisslang::container::encode(&module)).unwrap();
    for plan in ["pausing.txt", "pausing.bin"] {
        let copy = dir.path().join(format!("{plan}.snap"));
        std::fs::copy(&snap, &copy).unwrap();
        let o =
            tissvm(dir.path(), &["resume", copy.to_str().unwrap(), "--plan", plan, "--answer", "continue"]);
        assert_eq!(o.status.code(), Some(0), "--plan {plan}\n{}", stderr(&o));
    }
}

#[test]
fn a_snapshot_given_as_a_plan_is_named_as_one() {
    let dir = workspace();
    let pausing = "TASK \"Wait\"\nSTEP \"s\" {\n    PAUSE \"p\"\n}\n";
    std::fs::write(dir.path().join("pausing.tiss"), pausing).unwrap();
    let ws = dir.path().to_str().unwrap();
    let o = tissvm(dir.path(), &["run", "pausing.tiss", "--workdir", ws, "--non-interactive"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    for args in [&["run", ".tiss/wait-1.snap"][..], &["inspect", ".tiss/wait-1.snap"][..]] {
        let o = tissvm(dir.path(), args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert_eq!(
            stderr(&o),
            "tissvm: `.tiss/wait-1.snap` is a snapshot, not a plan; continue it with `tissvm resume .tiss/wait-1.snap`\n"
        );
    }
}

/// `tissvm ARGS` in `dir` with `input` on stdin.
fn tissvm_with_input(dir: &Path, args: &[&str], input: &str) -> Output {
    use std::io::Write;
    let mut child = crate::common::command()
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run tissvm");
    child.stdin.take().expect("stdin").write_all(input.as_bytes()).expect("write commands");
    child.wait_with_output().expect("tissvm ends")
}

/// `cd / && tissvm run plan.tiss` would write the plan's files into `/`: a
/// fresh run refuses the directories a resumed one refuses (book: cli/tissvm.md), before
/// anything runs, and says how to give one of your own.
#[test]
fn a_fresh_run_refuses_a_system_directory_as_its_workspace() {
    let fx = crate::common::Fixture::new();
    let plan =
        fx.write_plan("TASK \"t\"\nSTEP \"s\" {\n    WRITE \"tiss-should-not-exist.txt\" <<X\nno\nX\n}\n");
    let home = fx.path("home");
    std::fs::create_dir(&home).unwrap();
    let cases: &[(&str, &[&str], &str)] = &[
        ("/", &[], "the current directory, `/`, which is a system directory (the file system's root)"),
        ("/", &["--workdir", "/etc"], "--workdir `/etc` (`/etc`) which is a system directory"),
        ("/", &["--workdir", "/tmp/../usr"], "--workdir `/tmp/../usr` (`/usr`) which is a system directory"),
        ("/", &["--workdir", "/tmp"], "which is a system directory (every user's)"),
        ("/", &["--workdir", home.to_str().unwrap()], "your home directory itself"),
    ];
    for (cwd, args, said) in cases {
        let run = crate::common::tissvm(
            std::path::Path::new(cwd),
            &[&["run", plan.as_str()][..], args].concat(),
            &[("HOME", home.to_str().unwrap())],
        );
        assert_eq!(run.code, Some(2), "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(said), "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains("Give --workdir naming a directory of your own"), "{}", run.stderr);
    }
    for dir in ["/", "/etc", "/usr", "/tmp"] {
        assert!(!std::path::Path::new(dir).join("tiss-should-not-exist.txt").exists(), "written into {dir}");
    }
    // Named explicitly with --allow-system-workdir, it is the user's call.
    let run = crate::common::tissvm(
        fx.root.path(),
        &["run", &plan, "--workdir", home.to_str().unwrap(), "--allow-system-workdir"],
        &[("HOME", home.to_str().unwrap())],
    );
    run.expect(0);
    assert!(home.join("tiss-should-not-exist.txt").exists());
    // A directory of one's own, under a shared one, is fine.
    let ws = fx.path("mine");
    std::fs::create_dir(&ws).unwrap();
    crate::common::tissvm(fx.root.path(), &["run", &plan, "--workdir", ws.to_str().unwrap()], &[]).expect(0);
}

/// `--report /dev/stdout` writes the report into the stream (it used to
/// rename a file over the name: the report went nowhere, and as root the
/// `/dev/stdout` link was replaced), and `/dev/null` stays a device.
#[test]
fn a_report_goes_into_dev_stdout_and_dev_null_stays_a_device() {
    use std::os::unix::fs::FileTypeExt;
    let dir = workspace();
    std::fs::create_dir(dir.path().join("ws")).unwrap();
    let o = tissvm(
        dir.path(),
        &["run", "plan.tiss", "--workdir", "ws", "--output-format", "json", "--report", "/dev/stdout"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("the report on stdout");
    assert_eq!(report["status"], "passed");
    assert!(std::fs::symlink_metadata("/dev/stdout").unwrap().file_type().is_symlink());
    let o = tissvm(
        dir.path(),
        &["run", "plan.tiss", "--workdir", "ws", "--output-format", "junit", "--report", "/dev/null"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(std::fs::metadata("/dev/null").unwrap().file_type().is_char_device());
}

/// A missing workspace is said first, whatever file of the run's would be
/// opened in it (the journal and the log are opened before the sandbox's
/// view is built, which shows them read-only), and nothing is created.
#[test]
fn a_workdir_that_is_not_a_directory_is_told_before_the_runs_files_are_opened() {
    let dir = workspace();
    for extra in [&[][..], &["--journal", "j.jnl"], &["--log-file", "l.log"]] {
        let o = tissvm(dir.path(), &[&["run", "plan.tiss", "--workdir", "nope"][..], extra].concat());
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {}", stderr(&o));
        assert!(
            stderr(&o).starts_with("tissvm: --workdir `nope` is not a directory"),
            "{extra:?}: {}",
            stderr(&o)
        );
    }
    assert!(!dir.path().join("j.jnl").exists() && !dir.path().join("l.log").exists());
}

/// A debug session keeps every statement it reaches for `back`, and copied
/// the whole machine at each: a plan of 20,000 VARs took 16 s and 5.2 GB
/// (the release build) to `continue` through. The machine is now kept whole
/// only as often as copying it costs less than running (book: cookbook/debugging.md).
#[test]
fn a_debug_session_of_a_plan_with_many_variables_goes_back_in_bounded_memory() {
    let dir = workspace();
    let mut plan = String::from("TASK \"t\"\nSTEP \"s\" {\n");
    for i in 0..20_000 {
        plan.push_str(&format!("    VAR v{i} = \"abc\"\n"));
    }
    plan.push_str("    LOG \"done\"\n}\n");
    std::fs::write(dir.path().join("many.tiss"), plan).unwrap();
    let ws = dir.path().to_str().unwrap();
    let started = std::time::Instant::now();
    let commands = "break 20002\ncontinue\nback\nback\nprint v19997\nprint v19998\nreverse-continue\n";
    let o = tissvm_with_input(dir.path(), &["debug", "many.tiss", "--workdir", ws], commands);
    let took = started.elapsed();
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(out.contains("back at line 20000:5"), "{out}");
    assert!(out.contains("v19997 = \"abc\"") && out.contains("`v19998` is not bound yet"), "{out}");
    // The window `back` keeps is 10,000 statements.
    assert!(out.contains("back at the first statement kept, line 10010:5"), "{out}");
    assert!(took < std::time::Duration::from_secs(20), "{took:?}");
}
