//! End-to-end `tissvm debug` sessions: commands piped on stdin to the real
//! binary, the transcript on stdout compared whole; `save` then `tissvm resume`.

use std::io::Write;
use std::path::Path;
use std::process::{Output, Stdio};
use std::time::Duration;

const PLAN: &str = r#"TASK "Greet"

DEFINE_TASK "shout" {
    RUN "echo HELLO"
}

STEP "Write" {
    WRITE "name.txt" <<TEXT
world
TEXT
    VAR name = "world"
}

STEP "Greet" {
    RUN "echo hello ${name}"
    ASSERT LAST_RUN.STDOUT CONTAINS "hello"
    CALL "shout"
    VAR done = TRUE
}
"#;

const PAUSING: &str = r#"TASK "Wait for me"

STEP "Ask" {
    VAR x = "before"
    PAUSE "Check the file"
    WRITE "after.txt" FROM x
}
"#;

/// `tissvm ARGS` in `dir` with `input` on stdin (a pipe: not a terminal).
fn tissvm(dir: &Path, args: &[&str], input: &str) -> Output {
    let mut child = crate::common::command()
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tissvm");
    child.stdin.take().expect("stdin").write_all(input.as_bytes()).expect("write commands");
    child.wait_with_output().expect("tissvm ends")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("stderr is UTF-8")
}

fn workspace(name: &str, plan: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join(name), plan).unwrap();
    dir
}

fn assert_transcript(o: &Output, expected: &str) {
    let got = stdout(o);
    assert_eq!(
        got,
        expected,
        "\n--- got ---\n{got}--- expected ---\n{expected}--- stderr ---\n{}",
        stderr(o)
    );
}

#[test]
fn a_scripted_session_runs_to_the_end() {
    let dir = workspace("plan.tiss", PLAN);
    let commands = "break 15\nbreak \"Greet\"\ncontinue\ncontinue\nprint LAST_RUN\nnext\nprint LAST_RUN.STDOUT\n\
                    print LAST_RUN.EXIT_CODE\nstep\nstep\nwhere\nprint COST.RUN_COUNT\nlocals\nlist\ncontineu\n\
                    continue\nprint done\nwhere\n";
    let o = tissvm(dir.path(), &["debug", "plan.tiss"], commands);
    assert_transcript(
        &o,
        r#"debugging "Greet" (help lists the commands)
paused before the first statement at line 7:1, entering step "Write"
    7 | STEP "Write" {
(tissvm) break 15
breakpoint 1 at line 15
(tissvm) break "Greet"
breakpoint 2 at step "Greet"
(tissvm) continue
hit breakpoint 2 at line 14:1, entering step "Greet"
   14 | STEP "Greet" {
(tissvm) continue
hit breakpoint 1 at line 15:5, step "Greet"
   15 |     RUN "echo hello ${name}"
(tissvm) print LAST_RUN
LAST_RUN is not set: no RUN has happened yet
(tissvm) next
at line 16:5, step "Greet"
   16 |     ASSERT LAST_RUN.STDOUT CONTAINS "hello"
(tissvm) print LAST_RUN.STDOUT
LAST_RUN.STDOUT = "hello world\n"
(tissvm) print LAST_RUN.EXIT_CODE
LAST_RUN.EXIT_CODE = 0
(tissvm) step
at line 17:5, step "Greet"
   17 |     CALL "shout"
(tissvm) step
at line 4:5, step "Greet", task "shout"
    4 |     RUN "echo HELLO"
(tissvm) where
at line 4, column 5
    4 |     RUN "echo HELLO"
step path: Greet
call stack, innermost first:
  task "shout" at line 4:5
  main at line 17:5
(tissvm) print COST.RUN_COUNT
COST.RUN_COUNT = 1
(tissvm) locals
name: string = "world"
(tissvm) list
    1 | TASK "Greet"
    2 |
    3 | DEFINE_TASK "shout" {
->  4 |     RUN "echo HELLO"
    5 | }
    6 |
    7 | STEP "Write" {
    8 |     WRITE "name.txt" <<TEXT
    9 | world
(tissvm) contineu
unknown command `contineu`; did you mean `continue`?
commands: break, delete, continue, step, next, back, reverse-continue, print, locals, where, list, save, quit, help
(tissvm) continue
the plan ended: passed
(tissvm) print done
done = TRUE
(tissvm) where
the plan has ended: passed
"#,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(dir.path().join("name.txt")).unwrap(), "world\n");
    // Step lines go to stderr, out of the transcript's way.
    assert!(stderr(&o).contains("✓ Greet"), "{}", stderr(&o));
}

/// `plan.tbc` in `dir` compiled from `source` as `tissc compile` writes it
/// by default: the source kept as its hash.
fn compile_beside(dir: &Path, source: &str) {
    let Ok((mut module, _)) = tiss_compiler::compile("plan.tiss", source.as_bytes(), Default::default())
    else {
        panic!("the test plan compiles");
    };
    module.source.drop_text();
    std::fs::write(dir.join("plan.tbc"), tisslang::container::encode(&module)).unwrap();
}

#[test]
fn bytecode_shows_the_source_beside_it_while_it_matches() {
    let dir = workspace("plan.tiss", PLAN);
    compile_beside(dir.path(), PLAN);
    let o = tissvm(dir.path(), &["debug", "plan.tbc"], "list 3\nwhere\n");
    assert_transcript(
        &o,
        r#"debugging "Greet" (help lists the commands)
paused before the first statement at line 7:1, entering step "Write"
    7 | STEP "Write" {
(tissvm) list 3
    1 | TASK "Greet"
    2 |
    3 | DEFINE_TASK "shout" {
    4 |     RUN "echo HELLO"
    5 | }
    6 |
->  7 | STEP "Write" {
    8 |     WRITE "name.txt" <<TEXT
(tissvm) where
at line 7, column 1
    7 | STEP "Write" {
step path: (no step open)
next: entering step "Write"
call stack, innermost first:
  main at line 7:1
"#,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));

    // Edited after compiling: its lines would not be the code's.
    std::fs::write(dir.path().join("plan.tiss"), PLAN.replace("\n\nSTEP \"Write\"", "\nSTEP \"Write\""))
        .unwrap();
    let changed = "`plan.tiss` is not the text this bytecode was compiled from (it changed since), so its lines \
                   would not match the code; recompile with `tissc compile plan.tiss`";
    let o = tissvm(dir.path(), &["debug", "plan.tbc"], "list\nwhere\n");
    assert_transcript(
        &o,
        &format!(
            r#"debugging "Greet" (help lists the commands)
no source to show: {changed}
paused before the first statement at line 7:1, entering step "Write"
(tissvm) list
no source to show: {changed}; `tissvm disasm` shows the code
(tissvm) where
at line 7, column 1
no source to show: {changed}
step path: (no step open)
next: entering step "Write"
call stack, innermost first:
  main at line 7:1
"#
        ),
    );

    // Gone.
    std::fs::remove_file(dir.path().join("plan.tiss")).unwrap();
    let o = tissvm(dir.path(), &["debug", "plan.tbc"], "list\n");
    assert!(
        stdout(&o).contains(
            "(tissvm) list\nno source to show: the bytecode keeps only its source's hash, and `plan.tiss` is not \
             there; put the plan's source there, or compile with `tissc compile --embed-source` to keep the text \
             in the .tbc; `tissvm disasm` shows the code\n"
        ),
        "{}",
        stdout(&o)
    );

    // A snapshot carries the bytecode as it was loaded (the hash, no text),
    // and resumes from another directory.
    let o = tissvm(dir.path(), &["debug", "plan.tbc", "--break", "17"], "continue\nsave saved.snap\nquit\n");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let bytes = std::fs::read(dir.path().join("saved.snap")).unwrap();
    let snap = tiss_vm::session::snapshot::read_snapshot(&bytes).expect("the snapshot loads");
    assert!(matches!(snap.module.source, tisslang::module::Source::Hash(_)), "{:?}", snap.module.source);
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::rename(dir.path().join("saved.snap"), elsewhere.path().join("saved.snap")).unwrap();
    let workdir = dir.path().to_str().unwrap();
    let o = tissvm(
        elsewhere.path(),
        &["resume", "saved.snap", "--workdir", workdir, "--output-format", "json"],
        "",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("a JSON report");
    assert_eq!(report["status"], "passed");
}

#[test]
fn break_options_and_end_of_input_quit_before_the_end() {
    let dir = workspace("plan.tiss", PLAN);
    let o = tissvm(
        dir.path(),
        &["debug", "plan.tiss", "--break", "17", "--break", "Write"],
        "continue\ncontinue\n",
    );
    assert_transcript(
        &o,
        r#"debugging "Greet" (help lists the commands)
breakpoint 1 at line 17
breakpoint 2 at step "Write"
paused before the first statement at line 7:1, entering step "Write"
    7 | STEP "Write" {
(tissvm) continue
hit breakpoint 1 at line 17:5, step "Greet"
   17 |     CALL "shout"
(tissvm) continue
the plan ended: passed
"#,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));

    // Quitting before the end is a normal end of the session: status 0.
    let o = tissvm(dir.path(), &["debug", "plan.tiss", "--break", "Greet"], "continue\n");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).ends_with("(tissvm) continue\nhit breakpoint 1 at line 14:1, entering step \"Greet\"\n   14 | STEP \"Greet\" {\n"), "{}", stdout(&o));
    let o = tissvm(dir.path(), &["debug", "plan.tiss"], "step\nquit\nstep\n");
    assert!(stdout(&o).ends_with("(tissvm) quit\n"), "{}", stdout(&o));
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn a_failure_ends_the_session_with_the_plans_status() {
    let dir = workspace(
        "plan.tiss",
        "TASK \"t\"\nSTEP \"s\" {\n    RUN \"exit 3\"\n    ASSERT LAST_RUN.EXIT_CODE == 0\n}\n",
    );
    let o = tissvm(dir.path(), &["debug", "plan.tiss"], "continue\nprint LAST_RUN.EXIT_CODE\n");
    assert_transcript(
        &o,
        r#"debugging "t" (help lists the commands)
paused before the first statement at line 2:1, entering step "s"
    2 | STEP "s" {
(tissvm) continue
the plan ended: failed
  assertion_failed: `LAST_RUN.EXIT_CODE == 0` is false
  in step: s
  at line 4, column 5
  condition: LAST_RUN.EXIT_CODE == 0
  LAST_RUN.EXIT_CODE = 3
  command: exit 3
  exit status: 3
  stdout: (empty)
  stderr: (empty)
(tissvm) print LAST_RUN.EXIT_CODE
LAST_RUN.EXIT_CODE = 3
"#,
    );
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn save_writes_a_snapshot_that_tissvm_resume_continues() {
    let dir = workspace("plan.tiss", PLAN);
    let o = tissvm(dir.path(), &["debug", "plan.tiss", "--break", "17"], "continue\nsave saved.snap\nquit\n");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).ends_with(
            "(tissvm) save saved.snap\nsaved a snapshot to saved.snap; continue the run with: tissvm resume saved.snap\n\
             (tissvm) quit\n"
        ),
        "{}",
        stdout(&o)
    );
    let o = tissvm(dir.path(), &["resume", "saved.snap", "--output-format", "json"], "");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("a JSON report");
    assert_eq!(report["status"], "passed");
    // The resumed run did the CALL (one RUN) on top of the one before the save.
    assert_eq!(report["cost"]["run_count"], 2, "{report}");
}

#[test]
fn a_suspension_is_saved_and_resumed_with_an_answer() {
    let dir = workspace("plan.tiss", PAUSING);
    let o = tissvm(dir.path(), &["debug", "plan.tiss"], "continue\nsave wait.snap\ncontinue\nquit\n");
    assert_transcript(
        &o,
        r#"debugging "Wait for me" (help lists the commands)
paused before the first statement at line 3:1, entering step "Ask"
    3 | STEP "Ask" {
(tissvm) continue
suspended at line 5:5, step "Ask"
    5 |     PAUSE "Check the file"
waiting for an answer to PAUSE "Check the file": none is available (no terminal, --non-interactive, or the answers ran out)
`save FILE` writes a snapshot; `tissvm resume FILE --answer continue` continues it
(tissvm) save wait.snap
saved a snapshot to wait.snap; continue the run with: tissvm resume wait.snap --answer continue
(tissvm) continue
suspended at line 5:5, step "Ask"
    5 |     PAUSE "Check the file"
waiting for an answer to PAUSE "Check the file": none is available (no terminal, --non-interactive, or the answers ran out)
`save FILE` writes a snapshot; `tissvm resume FILE --answer continue` continues it
(tissvm) quit
"#,
    );
    assert_eq!(o.status.code(), Some(0));
    assert!(!dir.path().join("after.txt").exists());
    let o = tissvm(dir.path(), &["resume", "wait.snap", "--answer", "continue"], "");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(dir.path().join("after.txt")).unwrap(), "before");
}

/// `save` at a REQUEST_REVIEW prints one command per answer, each ready to
/// paste (the path shell-quoted), and both work.
#[test]
fn a_saved_review_names_one_pasteable_command_per_answer() {
    let plan = "TASK \"Gate\"\nSTEP \"s\" {\n    REQUEST_REVIEW \"Ship?\" INTO r\n    WRITE \"out.txt\" FROM \"${r.APPROVED}\"\n}\n";
    let dir = workspace("plan.tiss", plan);
    let o = tissvm(dir.path(), &["debug", "plan.tiss"], "continue\nsave \"my review.snap\"\nquit\n");
    let out = stdout(&o);
    let expected = "saved a snapshot to my review.snap; continue the run with one of:\n  \
                    tissvm resume 'my review.snap' --answer approve\n  \
                    tissvm resume 'my review.snap' --answer reject --comment '...'\n";
    assert!(out.contains(expected), "{out}");
    let saved = std::fs::read(dir.path().join("my review.snap")).unwrap();
    for (answer, written) in [("approve", "true"), ("reject", "false")] {
        std::fs::write(dir.path().join("my review.snap"), &saved).unwrap();
        let o = tissvm(dir.path(), &["resume", "my review.snap", "--answer", answer], "");
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert_eq!(std::fs::read_to_string(dir.path().join("out.txt")).unwrap(), written);
    }
}

#[test]
fn answers_given_in_advance_answer_in_the_session() {
    let dir = workspace("plan.tiss", PAUSING);
    std::fs::write(dir.path().join("answers.json"), r#"[{"answer": "continue", "line": 5}]"#).unwrap();
    let o = tissvm(dir.path(), &["debug", "plan.tiss", "--answers", "answers.json"], "continue\n");
    assert!(stdout(&o).ends_with("(tissvm) continue\nthe plan ended: passed\n"), "{}", stdout(&o));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn bad_options_are_usage_errors() {
    let dir = workspace("plan.tiss", PLAN);
    let o = tissvm(dir.path(), &["debug", "plan.tiss", "--break", "2"], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o)
            .contains("tissvm: --break 2: line 2 has no code to stop at; the first line with code is 4"),
        "{}",
        stderr(&o)
    );
    let o = tissvm(dir.path(), &["debug", "plan.tiss", "--break", "Gret"], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no step is named \"Gret\"; did you mean \"Greet\"?"), "{}", stderr(&o));
    let o = tissvm(dir.path(), &["debug", "plan.tiss", "--output-format", "json"], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("unexpected argument '--output-format'"), "{}", stderr(&o));
    let o = tissvm(dir.path(), &["debug", "plan.tiss", "--budget", "RUNS=1"], "");
    assert_eq!(o.status.code(), Some(2));
    let o = tissvm(dir.path(), &["debug", "missing.tiss"], "");
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn budgets_from_the_command_line_apply() {
    let dir = workspace("plan.tiss", PLAN);
    let o = tissvm(dir.path(), &["debug", "plan.tiss", "--budget", "RUN_COUNT=1"], "continue\n");
    assert_eq!(o.status.code(), Some(4), "{}", stdout(&o));
    assert!(stdout(&o).contains("the plan ended: failed\n  budget_exceeded: "), "{}", stdout(&o));
}

#[test]
fn help_lists_the_options_of_run_and_break() {
    let o = tissvm(Path::new("."), &["debug", "--help"], "");
    assert_eq!(o.status.code(), Some(0));
    let help = stdout(&o);
    for option in ["--break <LINE|STEP>", "--workdir", "--budget", "--answers", "--log-file", "--provider"] {
        assert!(help.contains(option), "{option} in {help}");
    }
}

#[test]
fn ctrl_c_pauses_a_running_command_and_the_session_goes_on() {
    use std::io::{BufRead, BufReader, Read};
    let dir = workspace(
        "plan.tiss",
        "TASK \"Slow\"\n\nSTEP \"Wait\" {\n    RUN \"sleep 1\"\n    RUN \"sleep 30\"\n    VAR x = \"after\"\n}\n",
    );
    let started = std::time::Instant::now();
    let mut child = crate::common::command()
        .args(["debug", "plan.tiss"])
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tissvm");
    child.stdin.take().expect("stdin").write_all(b"continue\nprint x\n").expect("write commands");
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    let mut text = String::new();
    // The handler is installed before the banner: wait for the first stop.
    while !text.contains("paused before the first statement") {
        assert_ne!(out.read_line(&mut text).expect("read stdout"), 0, "{text}");
    }
    std::thread::sleep(Duration::from_millis(300));
    // SAFETY: kill(2) on the child this test started.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) }, 0);
    out.read_to_string(&mut text).expect("read stdout");
    let status = child.wait().expect("tissvm ends");
    assert_eq!(status.code(), Some(0), "{text}");
    assert!(text.contains("\ninterrupted (Ctrl-C) at line "), "{text}");
    assert!(text.ends_with("(tissvm) print x\n`x` is not bound yet (a string variable)\n"), "{text}");
    assert!(started.elapsed() < Duration::from_secs(20), "the 30 s command did not run");
}

/// A typed answer in the debugger (book: reference/types.md): `print` shows it as JSON with
/// its taint, follows its fields, names its type in `locals`, and refuses a
/// field the type lacks naming the type.
#[test]
fn typed_answers_print_as_json_and_by_field() {
    let plan = "TASK \"t\"
TYPE Plan = { env: \"staging\" | \"prod\", note: STRING, tags: LIST OF STRING }
STEP \"ask\" {
    PROMPT_AGENT \"Plan it.\" INTO p AS Plan
    LOG \"${p.env}\"
}
";
    let dir = workspace("plan.tiss", plan);
    let o = tissvm(
        dir.path(),
        &["debug", "plan.tiss", "--break", "5"],
        "continue\nprint p\nprint p.env\nprint p.nope\nlocals\nquit\n",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let json = r#"{"env":"staging","note":"mock answer","tags":[]}"#;
    assert!(out.contains(&format!("p = {json} (tainted: its strings are a model's)")), "{out}");
    assert!(out.contains("p.env = \"staging\"\n"), "{out}");
    let ty = r#"{ env: "staging" | "prod", note: STRING, tags: LIST OF STRING }"#;
    assert!(out.contains(&format!("`p` ({ty}) has no field `nope`")), "{out}");
    assert!(out.contains(&format!("p: {ty} = {json}")), "{out}");
}

/// Stepping backwards (book: cookbook/debugging.md): `back` returns to the statement before
/// with the machine as it stood there; going forward again replays what
/// the run took from outside — the RUN does not run twice, its output is
/// the one it had — and `reverse-continue` goes back to the last breakpoint
/// passed; a snapshot is refused while replaying.
#[test]
fn back_and_reverse_continue_replay_without_doing_anything_twice() {
    let plan = "TASK \"back\"
STEP \"s\" {
    RUN \"echo x >> count.txt; date +%N\" TIMEOUT 5s
    VAR first = LAST_RUN.STDOUT
    WRITE \"a.txt\" FROM \"one\"
    RUN \"wc -l < count.txt\" TIMEOUT 5s
    LOG \"${LAST_RUN.STDOUT}\"
}
";
    let dir = workspace("plan.tiss", plan);
    let o = tissvm(
        dir.path(),
        &["debug", "plan.tiss", "--break", "3"],
        "continue\nstep\nstep\nprint first\nback\nback\nprint LAST_RUN.STDOUT\nsave x.snap\nstep\nstep\nprint first\n\
         break 6\ncontinue\nstep\nprint LAST_RUN.STDOUT\nreverse-continue\nback\nback\ncontinue\ncontinue\nquit\n",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let first = out.lines().find_map(|l| l.strip_prefix("first = ")).expect("first printed").to_string();
    assert!(out.contains("back at line 4:5"), "{out}");
    assert!(out.contains("back at line 3:5"), "{out}");
    assert!(out.contains("LAST_RUN is not set: no RUN has happened yet"), "{out}");
    assert!(out.contains("the session went back"), "save refused while replaying: {out}");
    // Forward again: the same output, the command not run again.
    assert_eq!(out.lines().filter(|l| l.starts_with("first = ")).count(), 2, "{out}");
    assert!(out.lines().filter_map(|l| l.strip_prefix("first = ")).all(|f| f == first), "{out}");
    assert!(out.contains("LAST_RUN.STDOUT = \"1\\n\""), "the first RUN ran once: {out}");
    assert!(out.contains("back at breakpoint 2, line 6:5"), "{out}");
    assert_eq!(std::fs::read_to_string(dir.path().join("count.txt")).unwrap(), "x\n");
    assert!(out.contains("the plan ended: passed"), "{out}");
}
