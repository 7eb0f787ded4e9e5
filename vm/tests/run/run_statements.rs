//! Every statement's effect, and every failure kind's exit status, through the
//! real `tissvm run` binary, each in a fresh temporary workspace (book:
//! reference/statements.md, reference/failures.md, cli/tissvm.md).

use std::path::PathBuf;

use crate::common::Fixture;
use serde_json::Value as Json;

/// A temporary directory holding the plan (`plan.tiss`) and, beside it, the
/// workspace (`ws/`), so the workspace starts empty and a path that escapes it
/// lands in a place the test can look at.
impl Fixture {
    pub(crate) fn file(&self, rel: &str) -> PathBuf {
        self.ws().join(rel)
    }

    pub(crate) fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.file(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"))
    }

    pub(crate) fn write(&self, rel: &str, text: &str) {
        let path = self.file(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// The workspace's entries, recursively, as sorted relative paths.
    pub(crate) fn listing(&self) -> Vec<String> {
        tiss_test_support::listing(&self.ws())
    }
}

/// Runs `plan` with JSON output and returns the report, checking the exit status.
#[track_caller]
pub(crate) fn run_json(fx: &Fixture, plan: &str, code: i32) -> Json {
    let run = fx.run(plan, &["--output-format", "json"]);
    run.expect(code);
    let report = run.json();
    assert_eq!(report["exit_code"], code, "{report:#}");
    report
}

// ---------------------------------------------------------------- files

#[test]
fn write_heredoc_and_from_create_parent_directories() {
    let fx = Fixture::new();
    let plan = r#"TASK "write"
STEP "write" {
    WRITE "a/b/c/deep.txt" <<TEXT
first line
  # not a comment, ${not} interpolated
TEXT
    WRITE "indented.py" <<~PY
        def f():
            return 1
        PY
    VAR v = "from a variable"
    WRITE "from_var.txt" FROM v
    WRITE "from_literal.txt" FROM "tab\there\n"
    RUN "printf captured"
    WRITE "x/from_run.txt" FROM LAST_RUN.STDOUT
    WRITE "from_var.txt" FROM "overwritten"
}
"#;
    run_json(&fx, plan, 0);
    assert_eq!(fx.read("a/b/c/deep.txt"), "first line\n  # not a comment, ${not} interpolated\n");
    assert_eq!(fx.read("indented.py"), "def f():\n    return 1\n");
    assert_eq!(fx.read("from_var.txt"), "overwritten");
    assert_eq!(fx.read("from_literal.txt"), "tab\there\n");
    assert_eq!(fx.read("x/from_run.txt"), "captured");
    // Atomic writes leave no temporary files behind.
    assert_eq!(
        fx.listing(),
        [
            "a",
            "a/b",
            "a/b/c",
            "a/b/c/deep.txt",
            "from_literal.txt",
            "from_var.txt",
            "indented.py",
            "x",
            "x/from_run.txt"
        ]
    );
}

#[test]
fn append_creates_the_file_then_appends() {
    let fx = Fixture::new();
    fx.write("existing.log", "old\n");
    let plan = r#"TASK "append"
STEP "append" {
    APPEND "logs/new.log" <<LOG
one
LOG
    APPEND "logs/new.log" FROM "two\n"
    VAR three = "three"
    APPEND "logs/new.log" FROM three
    APPEND "existing.log" FROM "new\n"
}
"#;
    run_json(&fx, plan, 0);
    assert_eq!(fx.read("logs/new.log"), "one\ntwo\nthree");
    assert_eq!(fx.read("existing.log"), "old\nnew\n");
}

#[test]
fn read_binds_the_file_text() {
    let fx = Fixture::new();
    fx.write("input.txt", "héllo wörld ✓\nsecond line\n");
    let plan = r#"TASK "read"
STEP "read" {
    READ "input.txt" AS text
    ASSERT text == "héllo wörld ✓\nsecond line\n"
    ASSERT text STARTS_WITH "héllo"
    WRITE "copy.txt" FROM text
}
"#;
    run_json(&fx, plan, 0);
    assert_eq!(fx.read("copy.txt"), "héllo wörld ✓\nsecond line\n");
}

#[test]
fn mkdir_creates_parents_and_tolerates_an_existing_directory() {
    let fx = Fixture::new();
    std::fs::create_dir(fx.file("exists")).unwrap();
    let plan = r#"TASK "mkdir"
STEP "mkdir" {
    MKDIR "p/q/r"
    MKDIR "p/q/r"
    MKDIR "exists"
    ASSERT FILE "p/q/r" EXISTS
}
"#;
    run_json(&fx, plan, 0);
    assert!(fx.file("p/q/r").is_dir());
    assert_eq!(fx.listing(), ["exists", "p", "p/q", "p/q/r"]);
}

#[test]
fn delete_files_empty_directories_and_recursive_trees() {
    let fx = Fixture::new();
    fx.write("file.txt", "x");
    std::fs::create_dir(fx.file("empty")).unwrap();
    fx.write("tree/a/b.txt", "b");
    fx.write("tree/c.txt", "c");
    fx.write("keep.txt", "k");
    let plan = r#"TASK "delete"
STEP "delete" {
    DELETE "file.txt"
    DELETE "empty"
    DELETE "tree" RECURSIVE
    ASSERT NOT FILE "tree" EXISTS
}
"#;
    run_json(&fx, plan, 0);
    assert_eq!(fx.listing(), ["keep.txt"]);
}

#[test]
fn delete_of_a_non_empty_directory_needs_recursive() {
    let fx = Fixture::new();
    fx.write("tree/a.txt", "a");
    let plan = r#"TASK "delete"
STEP "delete" {
    DELETE "tree"
    WRITE "after.txt" FROM "must not run"
}
"#;
    let report = run_json(&fx, plan, 1);
    assert_eq!(report["status"], "failed");
    assert_eq!(report["failure"]["kind"], "command_error");
    assert_eq!(report["failure"]["line"], 3);
    let message = report["failure"]["message"].as_str().unwrap();
    assert!(message.contains("RECURSIVE"), "the message suggests the fix: {message}");
    assert_eq!(fx.read("tree/a.txt"), "a");
    assert!(!fx.file("after.txt").exists());
}

#[test]
fn delete_of_a_missing_path_is_a_command_error() {
    let fx = Fixture::new();
    let report = run_json(&fx, "TASK \"t\"\nSTEP \"s\" {\n    DELETE \"nothing-here\"\n}\n", 1);
    assert_eq!(report["failure"]["kind"], "command_error");
}

// ---------------------------------------------------------------- LOG, RUN, ENV

#[test]
fn log_appears_in_text_output() {
    let fx = Fixture::new();
    let plan = r#"TASK "log"
STEP "log" {
    VAR who = "world"
    LOG "hello ${who}, from the plan"
}
"#;
    let run = fx.run(plan, &[]);
    run.expect(0);
    assert!(run.stdout.contains("hello world, from the plan"), "{}", run.stdout);
}

#[test]
fn run_records_last_run_and_a_non_zero_exit_does_not_halt() {
    let fx = Fixture::new();
    let plan = r#"TASK "run"
STEP "run" {
    RUN "echo out; echo err >&2; exit 3"
    ASSERT LAST_RUN.EXIT_CODE == 3
    ASSERT LAST_RUN.STDOUT == "out\n"
    ASSERT LAST_RUN.STDERR == "err\n"
    ASSERT NOT LAST_RUN.TIMED_OUT
    ASSERT LAST_RUN.COMMAND == "echo out; echo err >&2; exit 3"
    ASSERT LAST_RUN.DURATION < 30s
    WRITE "result.txt" FROM "${LAST_RUN.EXIT_CODE}|${LAST_RUN.STDOUT}|${LAST_RUN.STDERR}|${LAST_RUN.TIMED_OUT}"
    RUN "false"
    WRITE "after_false.txt" FROM "${LAST_RUN.EXIT_CODE}"
}
"#;
    let report = run_json(&fx, plan, 0);
    assert_eq!(fx.read("result.txt"), "3|out\n|err\n|false");
    assert_eq!(fx.read("after_false.txt"), "1");
    assert_eq!(report["cost"]["run_count"], 2);
}

#[test]
fn run_in_a_subdirectory() {
    let fx = Fixture::new();
    std::fs::create_dir_all(fx.file("sub/dir")).unwrap();
    let plan = r#"TASK "in"
STEP "in" {
    RUN "pwd -P; echo made > here.txt" IN "sub/dir"
    WRITE "pwd.txt" FROM LAST_RUN.STDOUT
}
"#;
    run_json(&fx, plan, 0);
    assert_eq!(fx.read("sub/dir/here.txt"), "made\n");
    let expected = std::fs::canonicalize(fx.file("sub/dir")).unwrap();
    assert_eq!(fx.read("pwd.txt").trim_end(), expected.to_str().unwrap());
}

#[test]
fn run_timeout_kills_the_command_and_reports_124() {
    let fx = Fixture::new();
    let plan = r#"TASK "timeout"
STEP "timeout" {
    RUN "echo started; sleep 20; echo never" TIMEOUT 300ms
    ASSERT LAST_RUN.TIMED_OUT
    ASSERT LAST_RUN.EXIT_CODE == 124
    ASSERT LAST_RUN.STDOUT CONTAINS "started"
    ASSERT LAST_RUN.STDOUT NOT CONTAINS "never"
    WRITE "after.txt" FROM "ran"
}
"#;
    let start = std::time::Instant::now();
    run_json(&fx, plan, 0);
    assert!(start.elapsed() < std::time::Duration::from_secs(10), "took {:?}", start.elapsed());
    assert_eq!(fx.read("after.txt"), "ran");
}

#[test]
fn env_is_visible_to_later_runs_only() {
    let fx = Fixture::new();
    let plan = r#"TASK "env"
STEP "env" {
    RUN "echo before:$MODE"
    WRITE "before.txt" FROM LAST_RUN.STDOUT
    VAR mode = "fast"
    ENV MODE = mode
    RUN "echo $MODE"
    WRITE "after.txt" FROM LAST_RUN.STDOUT
    ENV MODE = "slow ${mode}"
    RUN "printf %s \"$MODE\""
    WRITE "again.txt" FROM LAST_RUN.STDOUT
}
"#;
    run_json(&fx, plan, 0);
    assert_eq!(fx.read("before.txt"), "before:\n");
    assert_eq!(fx.read("after.txt"), "fast\n");
    assert_eq!(fx.read("again.txt"), "slow fast");
}

// ---------------------------------------------------------------- ASSERT, VAR, IF

#[test]
fn assert_passes_silently() {
    let fx = Fixture::new();
    let plan = r#"TASK "assert"
STEP "assert" {
    VAR n = 3
    ASSERT n == 3
    ASSERT n < 4 AND (n > 1 OR FALSE) AND NOT n == 5
    ASSERT "abc" MATCHES "^a.c$"
    ASSERT "" IS_EMPTY
    ASSERT 1500ms < 2s
}
"#;
    let report = run_json(&fx, plan, 0);
    assert_eq!(report["status"], "passed");
    assert_eq!(report["failure"], Json::Null);
}

#[test]
fn assert_failure_reports_the_condition_and_the_actual_values() {
    let fx = Fixture::new();
    let plan = r#"TASK "assert"
STEP "check" {
    VAR expected = "hello"
    RUN "echo goodbye"
    ASSERT LAST_RUN.STDOUT CONTAINS expected MESSAGE "greeting missing"
    WRITE "after.txt" FROM "must not run"
}
"#;
    let report = run_json(&fx, plan, 1);
    assert_eq!(report["status"], "failed");
    let f = &report["failure"];
    assert_eq!(f["kind"], "assertion_failed");
    assert_eq!(f["message"], "greeting missing");
    assert_eq!(f["step"], "check");
    assert_eq!(f["line"], 5);
    assert_eq!(f["column"], 5);
    assert_eq!(f["condition"], "LAST_RUN.STDOUT CONTAINS expected");
    let actual = f["actual"].as_object().expect("actual is an object");
    assert!(actual["LAST_RUN.STDOUT"].as_str().unwrap().contains("goodbye"), "{actual:?}");
    assert!(actual["expected"].as_str().unwrap().contains("hello"), "{actual:?}");
    assert!(!fx.file("after.txt").exists());
}

#[test]
fn assert_without_message_names_its_condition() {
    let fx = Fixture::new();
    let plan = "TASK \"t\"\nSTEP \"s\" {\n    VAR n = 3\n    ASSERT n == 4\n}\n";
    let report = run_json(&fx, plan, 1);
    let f = &report["failure"];
    assert_eq!(f["condition"], "n == 4");
    assert!(f["message"].as_str().unwrap().contains("n == 4"), "{f}");
    assert_eq!(f["actual"]["n"], 3, "an integer stays one");
}

#[test]
fn var_if_else_if_else_take_the_right_branch() {
    for (n, expected) in [(1, "small"), (5, "medium"), (50, "big")] {
        let fx = Fixture::new();
        let plan = format!(
            r#"TASK "if"
STEP "if" {{
    VAR n = {n}
    VAR label = "unset"
    IF n > 10 {{
        VAR label = "big"
    }} ELSE IF n > 3 THEN {{
        VAR label = "medium"
    }} ELSE {{
        VAR label = "small"
    }}
    WRITE "label.txt" FROM label
    IF label == "small" {{ WRITE "small-only.txt" FROM "x" }}
}}
"#
        );
        run_json(&fx, &plan, 0);
        assert_eq!(fx.read("label.txt"), expected, "n = {n}");
        assert_eq!(fx.file("small-only.txt").exists(), expected == "small", "n = {n}");
    }
}

// ---------------------------------------------------------------- TRY, CALL

#[test]
fn try_catch_binds_kind_message_step_and_line() {
    let fx = Fixture::new();
    let plan = r#"TASK "try"
STEP "outer" {
    TRY {
        READ "missing.txt" AS text
        WRITE "not-reached.txt" FROM text
    } CATCH AS e {
        WRITE "caught.txt" FROM "${e.KIND}|${e.STEP}|${e.LINE}"
        WRITE "message.txt" FROM e.MESSAGE
    }
    TRY {
        ASSERT 1 == 2 MESSAGE "one is not two"
    } CATCH AS e {
        APPEND "caught.txt" FROM "\n${e.KIND}|${e.MESSAGE}|${e.LINE}"
    }
    TRY {
        LOG "nothing fails"
    } CATCH {
        WRITE "no-failure.txt" FROM "wrong"
    }
}
"#;
    let report = run_json(&fx, plan, 0);
    assert_eq!(fx.read("caught.txt"), "command_error|outer|4\nassertion_failed|one is not two|11");
    assert!(fx.read("message.txt").contains("missing.txt"), "{}", fx.read("message.txt"));
    assert!(!fx.file("not-reached.txt").exists());
    assert!(!fx.file("no-failure.txt").exists());
    assert_eq!(report["steps"][0]["status"], "passed");
}

#[test]
fn try_catches_a_failure_inside_a_called_task() {
    let fx = Fixture::new();
    let plan = r#"TASK "try"
DEFINE_TASK "check" {
    STEP "deep" {
        ASSERT FILE "nope" EXISTS
    }
}
STEP "outer" {
    TRY { CALL "check" } CATCH AS e {
        WRITE "caught.txt" FROM "${e.KIND}|${e.STEP}|${e.LINE}"
    }
}
"#;
    run_json(&fx, plan, 0);
    assert_eq!(fx.read("caught.txt"), "assertion_failed|deep|4");
}

#[test]
fn call_runs_a_defined_task_each_time() {
    let fx = Fixture::new();
    let plan = r#"TASK "call"
DEFINE_TASK "tick" {
    APPEND "ticks.txt" FROM "tick\n"
    RUN "true"
}
STEP "first" {
    CALL "tick"
}
STEP "second" {
    CALL "tick"
    CALL "tick"
}
"#;
    let report = run_json(&fx, plan, 0);
    assert_eq!(fx.read("ticks.txt"), "tick\ntick\ntick\n");
    assert_eq!(report["cost"]["run_count"], 3);
    // A DEFINE_TASK is not a step of its own.
    let names: Vec<&str> =
        report["steps"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["first", "second"]);
}

// ---------------------------------------------------------------- models, costs, budgets

#[test]
fn prompt_agent_with_the_mock_provider() {
    let fx = Fixture::new();
    let plan = r#"TASK "prompt"
STEP "prompt" {
    VAR topic = "bytecode"
    PROMPT_AGENT "Explain stack machines" WITH topic INTO answer
    WRITE "answer.txt" FROM answer
    PROMPT_AGENT "Only logged"
    ASSERT COST.API_CALLS == 2
    ASSERT COST.TOKEN_COUNT > 0
}
"#;
    let report = run_json(&fx, plan, 0);
    assert_eq!(fx.read("answer.txt"), "mock answer to: Explain stack machines");
    assert_eq!(report["cost"]["api_calls"], 2);
    assert!(report["cost"]["token_count"].as_u64().unwrap() > 0, "{report:#}");
}

#[test]
fn read_of_a_missing_file_is_a_command_error() {
    let fx = Fixture::new();
    let plan =
        "TASK \"t\"\nSTEP \"reader\" {\n    READ \"missing.txt\" AS x\n    WRITE \"after.txt\" FROM x\n}\n";
    let report = run_json(&fx, plan, 1);
    assert_eq!(report["status"], "failed");
    let f = &report["failure"];
    assert_eq!(f["kind"], "command_error");
    assert_eq!(f["step"], "reader");
    assert_eq!(f["line"], 3);
    assert!(f["message"].as_str().unwrap().contains("missing.txt"), "{f}");
    assert!(fx.listing().is_empty());
}

#[test]
fn read_of_a_non_utf8_file_is_a_command_error() {
    let fx = Fixture::new();
    std::fs::write(fx.file("binary.bin"), [0xff, 0xfe, 0x00, 0x41]).unwrap();
    let report = run_json(&fx, "TASK \"t\"\nSTEP \"s\" {\n    READ \"binary.bin\" AS x\n}\n", 1);
    assert_eq!(report["failure"]["kind"], "command_error");
}

#[test]
fn run_in_a_missing_directory_is_a_command_error() {
    let fx = Fixture::new();
    let plan = "TASK \"t\"\nSTEP \"s\" {\n    RUN \"touch ran\" IN \"no/such/dir\"\n}\n";
    let report = run_json(&fx, plan, 1);
    assert_eq!(report["failure"]["kind"], "command_error");
    assert_eq!(report["failure"]["line"], 3);
    assert!(fx.listing().is_empty(), "{:?}", fx.listing());
}

#[test]
fn a_path_outside_the_workspace_is_a_security_violation() {
    let fx = Fixture::new();
    let plan = "TASK \"t\"\nSTEP \"s\" {\n    VAR p = \"../escaped.txt\"\n    WRITE \"${p}\" FROM \"x\"\n}\n";
    let report = run_json(&fx, plan, 5);
    assert_eq!(report["status"], "security_violation");
    assert_eq!(report["failure"]["kind"], "security_violation");
    assert!(!fx.root.path().join("escaped.txt").exists());
}

#[test]
fn a_plan_that_does_not_compile_exits_2_and_runs_nothing() {
    let fx = Fixture::new();
    let plan = "TASK \"t\"\nSTEP \"s\" {\n    RUN \"touch ran\"\n    ASSERT LAST_RUN.EXIT_CODE == \"0\"\n}\n";
    let run = fx.run(plan, &[]);
    run.expect(2);
    assert!(run.stderr.contains("error["), "{}", run.stderr);
    assert_eq!(run.stdout, "");
    assert!(fx.listing().is_empty());
    // With JSON output, stdout holds the report of a plan that cannot run.
    let run = fx.run("TASK \"t\"\nSTEP \"s\" {\n", &["--output-format", "json"]);
    run.expect(2);
    assert_eq!(run.json()["status"], "invalid");
    assert_eq!(run.json()["diagnostics"][0]["code"], "E0100");
    assert!(fx.listing().is_empty());
}

#[test]
fn a_missing_plan_file_exits_2() {
    let fx = Fixture::new();
    let ws = fx.ws();
    let run = fx.tissvm(&["run", "does-not-exist.tiss", "--workdir", ws.to_str().unwrap()]);
    run.expect(2);
    assert!(run.stderr.contains("does-not-exist.tiss"), "{}", run.stderr);
    let run = fx.tissvm(&["run", "does-not-exist.tbc", "--workdir", ws.to_str().unwrap()]);
    run.expect(2);
}

#[test]
fn a_missing_workdir_exits_2() {
    let fx = Fixture::new();
    std::fs::write(fx.root.path().join("plan.tiss"), "TASK \"t\"\nSTEP \"s\" { RUN \"true\" }\n").unwrap();
    let run = fx.tissvm(&["run", "plan.tiss", "--workdir", "no-such-dir"]);
    run.expect(2);
    assert!(!fx.root.path().join("no-such-dir").exists());
}

fn compile_to_bytes(source: &str) -> Vec<u8> {
    let Ok((module, _)) = tiss_compiler::compile("plan.tiss", source.as_bytes(), Default::default()) else {
        panic!("the test plan compiles");
    };
    tisslang::container::encode(&module)
}

#[test]
fn bytecode_runs_and_corrupt_bytecode_exits_2() {
    let fx = Fixture::new();
    let source = "TASK \"t\"\nSTEP \"s\" {\n    WRITE \"out.txt\" FROM \"from bytecode\"\n}\n";
    let good = compile_to_bytes(source);
    let ws = fx.ws();
    let ws = ws.to_str().unwrap();

    std::fs::write(fx.root.path().join("good.tbc"), &good).unwrap();
    fx.tissvm(&["run", "good.tbc", "--workdir", ws]).expect(0);
    assert_eq!(fx.read("out.txt"), "from bytecode");
    std::fs::remove_file(fx.file("out.txt")).unwrap();

    let mut flipped = good.clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0x40;
    let mut bad_magic = good.clone();
    bad_magic[0] ^= 0xff;
    // Without the magic a file is source, whatever its name: these do not
    // compile; the rest are bytecode the loader refuses.
    let cases: [(&str, Vec<u8>); 4] = [
        ("flipped.tbc", flipped),
        ("truncated.tbc", good[..good.len() / 2].to_vec()),
        ("magic.tbc", bad_magic),
        ("empty.tbc", Vec::new()),
    ];
    for (name, bytes) in cases {
        std::fs::write(fx.root.path().join(name), bytes).unwrap();
        let run = fx.tissvm(&["run", name, "--workdir", ws, "--output-format", "json"]);
        run.expect(2);
        assert_eq!(run.json()["status"], "invalid", "{name}");
        assert!(run.stderr.contains(name), "{name}: {}", run.stderr);
        assert!(!run.stderr.contains("panicked"), "{name}: {}", run.stderr);
        assert!(fx.listing().is_empty(), "{name}");
    }
    // Source named `.tbc` runs as source.
    std::fs::write(fx.root.path().join("source.tbc"), source).unwrap();
    fx.tissvm(&["run", "source.tbc", "--workdir", ws]).expect(0);
    assert_eq!(fx.read("out.txt"), "from bytecode");
}

#[test]
fn strict_sandbox_profile_is_refused_not_weakened() {
    let fx = Fixture::new();
    let run =
        fx.run("TASK \"t\"\nSTEP \"s\" {\n    RUN \"touch ran\"\n}\n", &["--sandbox-profile", "strict"]);
    // Either enforced (the run passes) or refused as a security failure; never weakened.
    match run.code {
        Some(0) => assert_eq!(fx.listing(), ["ran"]),
        Some(5) => assert!(fx.listing().is_empty(), "{:?}", fx.listing()),
        other => panic!("unexpected exit {other:?}: {}", run.stderr),
    }
}

/// A WRITE killed mid-way leaves its temporary file; the next write into
/// that directory removes it once its process is gone and a minute has
/// passed, and leaves a live process's or a fresh one alone.
#[test]
fn a_killed_writes_temporary_file_is_swept_by_a_later_write() {
    let fx = Fixture::new();
    // No process has a PID above the kernel's maximum.
    let pid_max: u64 = std::fs::read_to_string("/proc/sys/kernel/pid_max").unwrap().trim().parse().unwrap();
    let dead = pid_max + 1;
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    let plant = |name: &str, modified: std::time::SystemTime| {
        let file = std::fs::File::create(fx.file(name)).unwrap();
        file.set_modified(modified).unwrap();
    };
    let stale = format!(".tiss-tmp-{dead}-3-0badf00d");
    let fresh = format!(".tiss-tmp-{dead}-4-0badf00d");
    let live = format!(".tiss-tmp-{}-5-0badf00d", std::process::id());
    plant(&stale, old);
    plant(&fresh, std::time::SystemTime::now());
    plant(&live, old);
    plant("notes.tiss-tmp", old);
    fx.run("TASK \"t\"\nSTEP \"s\" {\n    WRITE \"out.txt\" FROM \"x\"\n}\n", &[]).expect(0);
    let listing = fx.listing();
    assert!(!listing.contains(&stale), "the stale temporary file is still there: {listing:?}");
    for kept in [&fresh, &live, &"notes.tiss-tmp".to_string(), &"out.txt".to_string()] {
        assert!(listing.contains(kept), "{kept} was removed: {listing:?}");
    }
}

/// A SIGKILL in the middle of a large WRITE leaves no temporary file: the
/// new content has no name while it is written (`O_TMPFILE`). The test
/// waits until tissvm has the new content open, in the middle of one of
/// eight 16 MB APPENDs, then kills it.
#[test]
fn a_write_killed_mid_way_leaves_no_temporary_file() {
    use std::process::Stdio;
    use std::time::{Duration, Instant};
    let fx = Fixture::new();
    std::fs::File::create(fx.file("big.bin")).unwrap().set_len(16 << 20).unwrap();
    let appends = "    APPEND \"big.bin\" FROM \"x\"\n".repeat(8);
    let plan = fx.write_plan(&format!("TASK \"t\"\nSTEP \"s\" {{\n{appends}}}\n"));
    let mut child = crate::common::command()
        .args(["run", &plan, "--workdir", fx.ws().to_str().unwrap()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let fds = format!("/proc/{}/fd", child.id());
    let ws = fx.ws().canonicalize().unwrap();
    // The new content: a file beneath the workspace that is not big.bin
    // (`ws/#123 (deleted)` while unnamed, `ws/.tiss-tmp-…` if named).
    let writing = || {
        std::fs::read_dir(&fds).into_iter().flatten().flatten().any(|fd| {
            std::fs::read_link(fd.path()).is_ok_and(|target| {
                target.parent() == Some(ws.as_path()) && target.file_name() != Some("big.bin".as_ref())
            })
        })
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    while !writing() {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("tissvm ended ({status}) before it was caught writing");
        }
        assert!(Instant::now() < deadline, "tissvm was never caught writing");
        std::thread::sleep(Duration::from_micros(200));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let left: Vec<String> = fx.listing().into_iter().filter(|name| name.contains(".tiss-tmp-")).collect();
    assert!(left.is_empty(), "the killed WRITE left {left:?}");
}
