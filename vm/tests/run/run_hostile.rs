//! Hostile plans and hostile commands through the real `tissvm run` binary:
//! workspace escapes (literal, computed, through symlinks), huge output,
//! processes that resist being killed, shell injection through
//! interpolation, and the scrubbed environment (book: reference/statements.md,
//! reference/failures.md, reference/sandbox.md).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::Run;

/// A temporary directory holding the plan (`plan.tiss`), the workspace
/// (`ws/`), and `outside.txt` beside the workspace: the file escapes aim at.
struct Fixture {
    root: tempfile::TempDir,
}

const OUTSIDE_TEXT: &str = "original outside content\n";

impl Fixture {
    fn new() -> Fixture {
        let root = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir(root.path().join("ws")).unwrap();
        std::fs::create_dir(root.path().join("outside_dir")).unwrap();
        std::fs::write(root.path().join("outside.txt"), OUTSIDE_TEXT).unwrap();
        std::fs::write(root.path().join("outside_dir/inner.txt"), OUTSIDE_TEXT).unwrap();
        Fixture { root }
    }

    fn ws(&self) -> PathBuf {
        self.root.path().join("ws")
    }

    fn file(&self, rel: &str) -> PathBuf {
        self.ws().join(rel)
    }

    /// An absolute path beside the workspace.
    fn outside(&self, rel: &str) -> PathBuf {
        self.root.path().join(rel)
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.file(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"))
    }

    fn listing(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.ws())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// Everything beside the workspace is as the fixture made it.
    #[track_caller]
    fn assert_outside_untouched(&self, context: &str) {
        let mut names: Vec<String> = std::fs::read_dir(self.root.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["outside.txt", "outside_dir", "plan.tiss", "ws"], "{context}");
        assert_eq!(std::fs::read_to_string(self.outside("outside.txt")).unwrap(), OUTSIDE_TEXT, "{context}");
        let inner: Vec<_> = std::fs::read_dir(self.outside("outside_dir")).unwrap().collect();
        assert_eq!(inner.len(), 1, "{context}");
        assert_eq!(
            std::fs::read_to_string(self.outside("outside_dir/inner.txt")).unwrap(),
            OUTSIDE_TEXT,
            "{context}"
        );
    }

    fn run(&self, plan: &str, args: &[&str]) -> Run {
        self.run_env(plan, args, &[])
    }

    fn run_env(&self, plan: &str, args: &[&str], env: &[(&str, &str)]) -> Run {
        std::fs::write(self.root.path().join("plan.tiss"), plan).unwrap();
        let ws = self.ws();
        let args = [&["run", "plan.tiss", "--workdir", ws.to_str().unwrap()], args].concat();
        crate::common::tissvm(self.root.path(), &args, env)
    }
}

fn plan_with(statements: &str) -> String {
    format!(
        "TASK \"hostile\"\nSTEP \"attack\" {{\n{statements}\n    WRITE \"after.txt\" FROM \"must not run\"\n}}\n"
    )
}

/// Runs `statements` and checks the run stopped with a security violation
/// before anything outside the workspace was touched.
#[track_caller]
fn assert_security_violation(fx: &Fixture, statements: &str) {
    let run = fx.run(&plan_with(statements), &["--output-format", "json"]);
    run.expect(5);
    let report = run.json();
    assert_eq!(report["status"], "security_violation", "{statements}\n{report:#}");
    assert_eq!(report["exit_code"], 5, "{statements}");
    assert_eq!(report["failure"]["kind"], "security_violation", "{statements}");
    assert!(!fx.file("after.txt").exists(), "{statements}: the run went on");
    fx.assert_outside_untouched(statements);
}

// ---------------------------------------------------------------- literal escapes

#[test]
fn literal_escapes_are_compile_errors() {
    let fx = Fixture::new();
    let statements = [
        "READ \"{}\" AS x",
        "WRITE \"{}\" FROM \"pwned\"",
        "WRITE \"{}\" <<T\npwned\nT",
        "APPEND \"{}\" FROM \"pwned\"",
        "MKDIR \"{}\"",
        "DELETE \"{}\"",
        "DELETE \"{}\" RECURSIVE",
        "RUN \"touch pwned\" IN \"{}\"",
        "ASSERT FILE \"{}\" EXISTS",
    ];
    for statement in statements {
        for path in ["../outside.txt", "/etc/passwd", "a/../../outside.txt", "..", "../outside_dir"] {
            let statement = statement.replace("{}", path);
            let run = fx.run(&plan_with(&format!("    {statement}")), &[]);
            run.expect(2);
            assert!(run.stderr.contains("E0210"), "{statement}: {}", run.stderr);
            assert_eq!(run.stdout, "", "{statement}");
            assert!(fx.listing().is_empty(), "{statement}: {:?}", fx.listing());
            fx.assert_outside_untouched(&statement);
        }
    }
}

// ---------------------------------------------------------------- computed escapes

#[test]
fn escapes_through_variables_are_security_violations() {
    let fx = Fixture::new();
    let absolute = fx.outside("outside.txt");
    let absolute = absolute.to_str().unwrap();
    let absolute_dir = fx.outside("outside_dir");
    let absolute_dir = absolute_dir.to_str().unwrap();
    let cases = [
        ("../outside.txt", "READ \"${p}\" AS x"),
        ("../outside.txt", "WRITE \"${p}\" FROM \"pwned\""),
        ("../new-outside.txt", "WRITE \"${p}\" FROM \"pwned\""),
        ("../outside.txt", "APPEND \"${p}\" FROM \"pwned\""),
        ("../new-outside.txt", "APPEND \"${p}\" FROM \"pwned\""),
        ("../new-dir", "MKDIR \"${p}\""),
        ("../outside.txt", "DELETE \"${p}\""),
        ("../outside_dir", "DELETE \"${p}\" RECURSIVE"),
        ("..", "DELETE \"${p}\" RECURSIVE"),
        ("../outside_dir", "RUN \"touch pwned\" IN \"${p}\""),
        ("../outside.txt", "ASSERT FILE \"${p}\" EXISTS"),
        ("sub/../../outside.txt", "WRITE \"${p}\" FROM \"pwned\""),
        (absolute, "READ \"${p}\" AS x"),
        (absolute, "WRITE \"${p}\" FROM \"pwned\""),
        (absolute, "APPEND \"${p}\" FROM \"pwned\""),
        (absolute, "DELETE \"${p}\""),
        (absolute_dir, "DELETE \"${p}\" RECURSIVE"),
        (absolute_dir, "MKDIR \"${p}/new\""),
        (absolute_dir, "RUN \"touch pwned\" IN \"${p}\""),
    ];
    for (value, statement) in cases {
        assert_security_violation(&fx, &format!("    VAR p = \"{value}\"\n    {statement}"));
        assert!(fx.listing().is_empty(), "{statement}: {:?}", fx.listing());
    }
}

#[test]
fn escapes_through_command_output_are_security_violations() {
    let fx = Fixture::new();
    assert_security_violation(
        &fx,
        "    RUN \"printf ../outside.txt\"\n    WRITE \"${LAST_RUN.STDOUT}\" FROM \"pwned\"",
    );
    let fx = Fixture::new();
    std::fs::write(fx.file("target.txt"), "../outside.txt").unwrap();
    assert_security_violation(&fx, "    READ \"target.txt\" AS p\n    APPEND \"${p}\" FROM \"pwned\"");
}

#[test]
fn try_does_not_catch_a_security_violation() {
    let fx = Fixture::new();
    let statements = r#"    VAR p = "../outside.txt"
    TRY {
        WRITE "${p}" FROM "pwned"
    } CATCH AS e {
        WRITE "caught.txt" FROM e.KIND
    }"#;
    assert_security_violation(&fx, statements);
    assert!(!fx.file("caught.txt").exists());
}

// ---------------------------------------------------------------- symlinks

#[test]
fn symlinks_that_lead_outside_are_security_violations() {
    let statements = [
        "READ \"link\" AS x",
        "WRITE \"link\" FROM \"pwned\"",
        "APPEND \"link\" FROM \"pwned\"",
        "ASSERT FILE \"link\" CONTAINS \"original\"",
        "READ \"dirlink/inner.txt\" AS x",
        "WRITE \"dirlink/inner.txt\" FROM \"pwned\"",
        "WRITE \"dirlink/new.txt\" FROM \"pwned\"",
        "APPEND \"dirlink/new.txt\" FROM \"pwned\"",
        "MKDIR \"dirlink/newdir\"",
        "DELETE \"dirlink/inner.txt\"",
        "RUN \"touch pwned\" IN \"dirlink\"",
        "READ \"rellink\" AS x",
        "WRITE \"rellink\" FROM \"pwned\"",
        "READ \"sub/up/outside.txt\" AS x",
    ];
    for statement in statements {
        let fx = Fixture::new();
        std::os::unix::fs::symlink(fx.outside("outside.txt"), fx.file("link")).unwrap();
        std::os::unix::fs::symlink(fx.outside("outside_dir"), fx.file("dirlink")).unwrap();
        std::os::unix::fs::symlink("../outside.txt", fx.file("rellink")).unwrap();
        std::fs::create_dir(fx.file("sub")).unwrap();
        std::os::unix::fs::symlink("../..", fx.file("sub/up")).unwrap();
        assert_security_violation(&fx, &format!("    {statement}"));
    }
}

#[test]
fn symlinks_within_the_workspace_are_followed() {
    let fx = Fixture::new();
    std::fs::write(fx.file("real.txt"), "real\n").unwrap();
    std::fs::create_dir(fx.file("realdir")).unwrap();
    std::os::unix::fs::symlink("real.txt", fx.file("alias")).unwrap();
    std::os::unix::fs::symlink("realdir", fx.file("diralias")).unwrap();
    let plan = r#"TASK "inside"
STEP "inside" {
    READ "alias" AS x
    ASSERT x == "real\n"
    APPEND "alias" FROM "more\n"
    WRITE "diralias/new.txt" FROM "new"
    RUN "pwd" IN "diralias"
}
"#;
    fx.run(plan, &[]).expect(0);
    assert_eq!(fx.read("real.txt"), "real\nmore\n");
    assert_eq!(fx.read("realdir/new.txt"), "new");
    fx.assert_outside_untouched("inside");
}

#[test]
fn a_symlink_made_by_a_run_is_checked_too() {
    let fx = Fixture::new();
    let target = fx.outside("made-by-run.txt");
    let statements =
        format!("    RUN \"ln -s {} link\"\n    WRITE \"link\" FROM \"pwned\"", target.display());
    assert_security_violation(&fx, &statements);
    assert!(!target.exists(), "the write went through the link");
    assert!(fx.file("link").is_symlink());

    let fx = Fixture::new();
    let statements = format!(
        "    RUN \"ln -s {} dl\"\n    WRITE \"dl/new.txt\" FROM \"pwned\"",
        fx.outside("outside_dir").display()
    );
    assert_security_violation(&fx, &statements);

    let fx = Fixture::new();
    assert_security_violation(&fx, "    RUN \"ln -s ../outside.txt rel\"\n    APPEND \"rel\" FROM \"pwned\"");
}

#[test]
fn a_symlink_loop_is_an_error_not_a_hang() {
    let fx = Fixture::new();
    std::os::unix::fs::symlink("loop", fx.file("loop")).unwrap();
    let run = fx.run(&plan_with("    READ \"loop\" AS x"), &["--output-format", "json"]);
    assert!(matches!(run.code, Some(1) | Some(5)), "{:?}: {}", run.code, run.stderr);
    assert!(!fx.file("after.txt").exists());
}

// ---------------------------------------------------------------- huge output

/// Peak RSS in KiB of `/usr/bin/time -v`'s child, from its report on stderr.
fn max_rss_kib(stderr: &str) -> Option<u64> {
    stderr
        .lines()
        .find_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes):"))
        .and_then(|v| v.trim().parse().ok())
}

#[test]
fn three_hundred_megabytes_of_output_in_bounded_memory() {
    let fx = Fixture::new();
    let plan = r#"TASK "flood"
STEP "flood" {
    RUN "head -c 300000000 /dev/zero | tr '\\0' 'a'; echo; echo tail-marker" TIMEOUT 60s
    ASSERT LAST_RUN.EXIT_CODE == 0
    ASSERT LAST_RUN.STDOUT STARTS_WITH "aaaaaaaaaaaaaaaa"
    ASSERT LAST_RUN.STDOUT ENDS_WITH "tail-marker\n"
    ASSERT LAST_RUN.STDOUT CONTAINS "omitted"
    WRITE "captured.txt" FROM LAST_RUN.STDOUT
}
"#;
    std::fs::write(fx.root.path().join("plan.tiss"), plan).unwrap();
    let ws = fx.ws();
    let time = Path::new("/usr/bin/time");
    let has_time = time.exists();
    let mut command = if has_time {
        let mut c = Command::new(time);
        c.arg("-v").arg(env!("CARGO_BIN_EXE_tissvm"));
        c.env(tiss_vm::session::snapshot_key::KEY_FILE_VAR, crate::common::key_file());
        c
    } else {
        crate::common::command()
    };
    let out = command
        .args(["run", "plan.tiss", "--workdir", ws.to_str().unwrap()])
        .current_dir(fx.root.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{}\n{stderr}", String::from_utf8_lossy(&out.stdout));
    // The capture is bounded (head and tail kept), not the whole stream.
    let captured = std::fs::metadata(fx.file("captured.txt")).unwrap().len();
    assert!(captured < 4 << 20, "captured {captured} bytes");
    if has_time {
        let rss = max_rss_kib(&stderr).unwrap_or_else(|| panic!("no RSS in:\n{stderr}"));
        assert!(rss < 200 * 1024, "peak RSS {rss} KiB");
    } else {
        eprintln!("skipped the memory check: /usr/bin/time is not installed");
    }
}

/// `plan` run under GNU time where it is installed: the run, and its peak
/// RSS in KiB (`None` without GNU time).
fn run_timed(fx: &Fixture, plan: &str) -> (std::process::Output, Option<u64>) {
    run_timed_with(fx, plan, &[])
}

/// [`run_timed`] with more arguments.
fn run_timed_with(fx: &Fixture, plan: &str, args: &[&str]) -> (std::process::Output, Option<u64>) {
    std::fs::write(fx.root.path().join("plan.tiss"), plan).unwrap();
    let ws = fx.ws();
    let time = Path::new("/usr/bin/time");
    let mut command = if time.exists() {
        let mut c = Command::new(time);
        c.arg("-v").arg(env!("CARGO_BIN_EXE_tissvm"));
        c.env(tiss_vm::session::snapshot_key::KEY_FILE_VAR, crate::common::key_file());
        c
    } else {
        eprintln!("skipped the memory check: /usr/bin/time is not installed");
        crate::common::command()
    };
    let out = command
        .args(["run", "plan.tiss", "--workdir", ws.to_str().unwrap(), "--output-format", "json"])
        .args(args)
        .current_dir(fx.root.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let rss = max_rss_kib(&String::from_utf8_lossy(&out.stderr));
    (out, rss)
}

/// tissvm runs outside every sandbox, so the plan's own values are bounded
/// (book: reference/statements.md, "Limits"): forty lines that double a
/// string aborted it on a failed allocation (or took every byte of a
/// larger machine), and READs of a 60 MiB file held 2 GB after thirty.
#[test]
fn a_plans_values_cannot_exhaust_tissvms_memory() {
    let fx = Fixture::new();
    // `statements` end in a command_error (exit 1): its report, and the peak RSS.
    let refused = |statements: String| {
        let (out, rss) = run_timed(&fx, &plan_with(&statements));
        assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(report["failure"]["kind"], "command_error", "{report:#}");
        assert!(!fx.file("after.txt").exists());
        (report["failure"].clone(), rss)
    };
    let lines = |first: &str, line: &dyn Fn(usize) -> String, n: usize| {
        (0..n).fold(first.to_string(), |plan, i| plan + &line(i) + "\n")
    };
    let message = |failure: &serde_json::Value| failure["message"].as_str().unwrap().to_string();

    let doubling =
        lines("    VAR x0 = \"abcdefgh\"\n", &|i| format!("    VAR x{} = \"${{x{i}}}${{x{i}}}\"", i + 1), 39);
    let (failure, rss) = refused(doubling);
    // x24 would be 8 * 2^24 bytes: 128 MiB.
    assert_eq!(failure["line"], 3 + 24, "{failure:#}");
    assert!(
        message(&failure).contains("would make a text of 128.0 MiB, more than a value may hold (64 MiB)")
    );
    assert!(rss.is_none_or(|rss| rss < 600 << 10), "peak RSS {rss:?} KiB");

    // Many READs of one large file, ENV copies of it, and copies of a RUN's
    // output: the run's values stop at 192 MiB together.
    let big = "    RUN \"truncate -s 60M big\" TIMEOUT 10s\n";
    let (failure, rss) = refused(lines(big, &|i| format!("    READ \"big\" AS r{i}"), 30));
    let text = message(&failure);
    assert!(text.starts_with("this READ would make 60.0 MiB more text"), "{text}");
    assert!(text.contains("hold 180.0 MiB already: together more than a run may hold (192 MiB)"), "{text}");
    assert!(rss.is_none_or(|rss| rss < 500 << 10), "peak RSS {rss:?} KiB");
    let (failure, _) =
        refused(lines(&format!("{big}    READ \"big\" AS r\n"), &|i| format!("    ENV E{i} = r"), 30));
    assert!(message(&failure).starts_with("this ENV would make 60.0 MiB more text"), "{failure:#}");
    // A RUN's command is held to the limit once quoted for the shell: 20 MB
    // of `'` are 80 MB quoted (it was built, then refused by execve).
    let quotes = "    RUN \"head -c 20000000 /dev/zero | tr '\\\\0' \\\"'\\\" > q\" TIMEOUT 10s\n    READ \"q\" AS q\n    RUN \"echo ${q}\" TIMEOUT 10s\n";
    let (failure, _) = refused(quotes.to_string());
    assert!(
        message(&failure).starts_with("this command as quoted for the shell would make a text of 76.3 MiB"),
        "{failure:#}"
    );
    // At the limit a run still suspends, and its snapshot is written.
    let pause = lines(big, &|i| format!("    READ \"big\" AS p{i}"), 3) + "    PAUSE \"go on?\"\n";
    let (out, _) = run_timed_with(&fx, &plan_with(&pause), &["--non-interactive"]);
    assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let snapshot = fx.root.path().join(report["snapshot"].as_str().unwrap());
    assert!(std::fs::metadata(&snapshot).is_ok_and(|m| m.len() > 180 << 20), "{report:#}");
    let output = "    RUN \"head -c 1048000 /dev/zero | tr '\\\\0' a\" TIMEOUT 10s\n";
    let (failure, _) = refused(lines(output, &|i| format!("    VAR o{i} = LAST_RUN.STDOUT"), 1100));
    assert!(message(&failure).starts_with("this field would make 1.0 MiB more text"), "{failure:#}");
}

/// A model's typed answer is a tree many times its text (`[1,1,…]`: 2 bytes
/// an item, 32 as a node), and each read of a list or record field copied
/// it whole: 7 MB of JSON took 260 MB, and copies of a field were never
/// counted. The tree is now held to 64 MiB while it is built, and counted
/// with the run's values, copies too.
#[test]
fn a_models_typed_answer_cannot_exhaust_tissvms_memory() {
    let fx = Fixture::new();
    let run = |items: usize, statements: &str| {
        let answer = format!("{{\"xs\":[{}]}}", vec!["1"; items].join(","));
        let answers = fx.root.path().join("answers.json");
        std::fs::write(&answers, serde_json::to_string(&[&answer, &answer]).unwrap()).unwrap();
        let plan = format!(
            "#TISS_VERSION >= 1.1\nTASK \"t\"\nTYPE Nums = {{ xs: LIST OF INT }}\nSTEP \"s\" {{\n    \
             PROMPT_AGENT \"numbers\" INTO n AS Nums\n{statements}    WRITE \"after.txt\" FROM \"must not run\"\n}}\n"
        );
        let (out, rss) = run_timed_with(&fx, &plan, &["--mock-answers", answers.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(!fx.file("after.txt").exists());
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        (report["failure"].clone(), rss)
    };
    // 3.5 million items: refused while it is built, asked again, refused again.
    let (failure, rss) = run(3_500_000, "");
    assert_eq!(failure["kind"], "invalid_answer", "{failure:#}");
    assert!(failure["message"].as_str().unwrap().contains("the answer is too large"), "{failure:#}");
    assert!(rss.is_none_or(|rss| rss < 300 << 10), "peak RSS {rss:?} KiB");
    // 400,000 items fit (a tree of 17 MiB); copies of the list are counted.
    let copies: String = (0..20).map(|i| format!("    VAR c{i} = n.xs\n")).collect();
    let (failure, rss) = run(400_000, &copies);
    assert_eq!(failure["kind"], "command_error", "{failure:#}");
    let message = failure["message"].as_str().unwrap();
    assert!(message.starts_with("this field of the answer would make"), "{message}");
    assert!(rss.is_none_or(|rss| rss < 400 << 10), "peak RSS {rss:?} KiB");
}

// ---------------------------------------------------------------- processes

/// Whether `pid` is gone or a zombie, waiting up to `wait` for it.
fn dead(pid: u32, wait: Duration) -> bool {
    let start = Instant::now();
    loop {
        let state = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| s.rsplit_once(')').map(|(_, rest)| rest.trim_start().chars().next()))
            .flatten();
        if matches!(state, None | Some('Z') | Some('X')) {
            return true;
        }
        if start.elapsed() > wait {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn read_pid(fx: &Fixture, name: &str) -> u32 {
    fx.read(name).trim().parse().unwrap_or_else(|e| panic!("{name}: {e}: {:?}", fx.read(name)))
}

#[test]
fn a_timeout_kills_a_sigterm_ignoring_command_and_its_children() {
    let fx = Fixture::new();
    let plan = r#"TASK "stubborn"
STEP "stubborn" {
    RUN "trap '' TERM; echo $$ > shell.pid; (trap '' TERM; sleep 30 & echo $! > child.pid; wait) & sleep 30" TIMEOUT 1s
    ASSERT LAST_RUN.TIMED_OUT
    ASSERT LAST_RUN.EXIT_CODE == 124
}
"#;
    let start = Instant::now();
    fx.run(plan, &[]).expect(0);
    let elapsed = start.elapsed();
    assert!(elapsed < Duration::from_secs(10), "took {elapsed:?}");
    for name in ["shell.pid", "child.pid"] {
        let pid = read_pid(&fx, name);
        assert!(dead(pid, Duration::from_secs(3)), "{name}: process {pid} survived the timeout");
    }
}

#[test]
fn background_children_do_not_outlive_their_run() {
    let fx = Fixture::new();
    let plan = r#"TASK "background"
STEP "background" {
    RUN "sleep 30 & echo $! > bg.pid; echo started"
    ASSERT LAST_RUN.STDOUT == "started\n"
    ASSERT NOT LAST_RUN.TIMED_OUT
}
"#;
    let start = Instant::now();
    fx.run(plan, &[]).expect(0);
    assert!(start.elapsed() < Duration::from_secs(10), "took {:?}", start.elapsed());
    let pid = read_pid(&fx, "bg.pid");
    assert!(dead(pid, Duration::from_secs(3)), "background process {pid} survived its run");
}

#[test]
fn commands_that_close_their_streams_early() {
    let fx = Fixture::new();
    let plan = r#"TASK "close"
STEP "close" {
    RUN "echo before; exec 1>&-; sleep 0.2; echo on-stderr >&2; exit 7" TIMEOUT 10s
    ASSERT LAST_RUN.EXIT_CODE == 7
    ASSERT LAST_RUN.STDOUT == "before\n"
    ASSERT LAST_RUN.STDERR CONTAINS "on-stderr"
    ASSERT NOT LAST_RUN.TIMED_OUT
    RUN "exec 1>&- 2>&-; sleep 0.2; echo done > done.txt" TIMEOUT 10s
    ASSERT LAST_RUN.EXIT_CODE == 0
    ASSERT FILE "done.txt" CONTAINS "done"
    RUN "cat; echo stdin-was-empty"
    ASSERT LAST_RUN.STDOUT == "stdin-was-empty\n"
    RUN "yes | head -n 3"
    ASSERT LAST_RUN.STDOUT == "y\ny\ny\n"
}
"#;
    let start = Instant::now();
    fx.run(plan, &[]).expect(0);
    assert!(start.elapsed() < Duration::from_secs(10), "took {:?}", start.elapsed());
}

#[test]
fn binary_and_control_characters_in_output_keep_reports_valid() {
    let fx = Fixture::new();
    let plan = r#"TASK "binary"
STEP "binary" {
    RUN "printf 'a\\000b\\033[31mred\\377\\376 ]]> </x> end'"
    ASSERT LAST_RUN.STDOUT == "something else"
}
"#;
    let run = fx.run(plan, &["--output-format", "json"]);
    run.expect(1);
    let report = run.json();
    assert_eq!(report["failure"]["kind"], "assertion_failed");
    let run = fx.run(plan, &["--output-format", "junit"]);
    run.expect(1);
    assert!(!run.stdout.contains('\u{1b}') && !run.stdout.contains('\0'), "{:?}", run.stdout);
    assert!(!run.stdout.contains("</x>"), "unescaped markup: {}", run.stdout);
}

// ---------------------------------------------------------------- injection

const NASTY: &str = r#"it's "quoted" $(touch pwned1) `touch pwned2` ; touch pwned3 && touch pwned4 | touch pwned5 > pwned6 \$HOME $HOME * ~ \\ end"#;

/// The plan-string spelling of [`NASTY`] plus a newline and a tab.
fn nasty_literal() -> String {
    NASTY.replace('\\', "\\\\").replace('"', "\\\"").replace('$', "\\$") + "\\nline two;touch pwned7\\t&"
}

fn nasty_value() -> String {
    format!("{NASTY}\nline two;touch pwned7\t&")
}

#[test]
fn interpolated_values_never_become_shell_syntax() {
    let fx = Fixture::new();
    let plan = format!(
        r#"TASK "inject"
STEP "inject" {{
    VAR v = "{}"
    RUN "printf %s ${{v}}"
    ASSERT LAST_RUN.STDOUT == v
    WRITE "printed.txt" FROM LAST_RUN.STDOUT
    RUN "printf '[%s]' ${{v}}${{v}} x${{v}}y"
    WRITE "joined.txt" FROM LAST_RUN.STDOUT
    READ "printed.txt" AS from_file
    RUN "printf %s ${{from_file}}"
    WRITE "from_file.txt" FROM LAST_RUN.STDOUT
    RUN "printf %s ${{LAST_RUN.STDOUT}}"
    WRITE "from_last_run.txt" FROM LAST_RUN.STDOUT
}}
"#,
        nasty_literal()
    );
    fx.run(&plan, &[]).expect(0);
    let value = nasty_value();
    assert_eq!(fx.read("printed.txt"), value);
    assert_eq!(fx.read("joined.txt"), format!("[{value}{value}][x{value}y]"));
    assert_eq!(fx.read("from_file.txt"), value);
    assert_eq!(fx.read("from_last_run.txt"), value);
    let pwned: Vec<String> = fx.listing().into_iter().filter(|n| n.starts_with("pwned")).collect();
    assert!(pwned.is_empty(), "injected commands ran: {pwned:?}");
    fx.assert_outside_untouched("injection");
}

#[test]
fn a_value_that_is_a_shell_word_on_its_own_stays_one_argument() {
    let fx = Fixture::new();
    let plan = r#"TASK "words"
STEP "words" {
    VAR spaced = "a  b"
    VAR empty = ""
    VAR dash = "-n"
    RUN "printf '<%s>' ${spaced} ${empty} ${dash}"
    WRITE "out.txt" FROM LAST_RUN.STDOUT
}
"#;
    fx.run(plan, &[]).expect(0);
    assert_eq!(fx.read("out.txt"), "<a  b><><-n>");
}

/// book: reference/statements.md: "every interpolated value is inserted as one shell-quoted word, so
/// data can never become shell syntax". A plan author who wraps the hole in
/// their own quotes (`'${v}'` or `\"${v}\"`) must not open the door either.
#[test]
fn interpolation_inside_quotes_in_the_command_stays_data() {
    let fx = Fixture::new();
    let plan = r#"TASK "quoted"
STEP "quoted" {
    VAR v = "a b $(touch pwned1) `touch pwned2`"
    RUN "printf '[%s]' '${v}'"
    WRITE "single.txt" FROM LAST_RUN.STDOUT
    RUN "printf '[%s]' \"${v}\""
    WRITE "double.txt" FROM LAST_RUN.STDOUT
}
"#;
    let run = fx.run(plan, &[]);
    let pwned: Vec<String> = fx.listing().into_iter().filter(|n| n.starts_with("pwned")).collect();
    assert!(pwned.is_empty(), "injected commands ran: {pwned:?}");
    // Either refused (a compile error) or the value printed as one word.
    if run.code == Some(0) {
        assert_eq!(fx.read("single.txt"), "[a b $(touch pwned1) `touch pwned2`]");
        assert_eq!(fx.read("double.txt"), "[a b $(touch pwned1) `touch pwned2`]");
    } else {
        run.expect(2);
    }
}

// ---------------------------------------------------------------- environment

#[test]
fn the_callers_secrets_are_not_passed_to_commands() {
    let plan = r#"TASK "env"
STEP "env" {
    RUN "env"
    WRITE "env.txt" FROM LAST_RUN.STDOUT
    RUN "printf %s \"$HOME\""
    WRITE "home.txt" FROM LAST_RUN.STDOUT
}
"#;
    let secrets = [
        ("TISS_TEST_SECRET", "hunter2"),
        ("AWS_SECRET_ACCESS_KEY", "aws-hunter2"),
        ("OPENAI_API_KEY", "sk-hunter2"),
    ];

    let fx = Fixture::new();
    fx.run_env(plan, &[], &secrets).expect(0);
    let env = fx.read("env.txt");
    assert!(!env.contains("hunter2"), "a secret leaked:\n{env}");
    assert!(env.lines().any(|l| l.starts_with("PATH=")), "{env}");
    let home = fx.read("home.txt");
    assert_eq!(
        std::fs::canonicalize(&home).unwrap(),
        std::fs::canonicalize(fx.ws()).unwrap(),
        "HOME is the workspace: {home}"
    );

    let fx = Fixture::new();
    fx.run_env(plan, &["--env-allow", "TISS_TEST_SECRET"], &secrets).expect(0);
    let env = fx.read("env.txt");
    assert!(env.lines().any(|l| l == "TISS_TEST_SECRET=hunter2"), "{env}");
    assert!(!env.contains("aws-hunter2") && !env.contains("sk-hunter2"), "only the allowed one:\n{env}");
}

#[test]
fn plan_env_reaches_commands_but_not_the_callers_environment() {
    let fx = Fixture::new();
    let plan = r#"TASK "env"
STEP "env" {
    ENV TISS_TEST_SECRET = "from-the-plan"
    RUN "printf %s \"$TISS_TEST_SECRET\""
    WRITE "value.txt" FROM LAST_RUN.STDOUT
}
"#;
    fx.run_env(plan, &[], &[("TISS_TEST_SECRET", "hunter2")]).expect(0);
    assert_eq!(fx.read("value.txt"), "from-the-plan");
}
