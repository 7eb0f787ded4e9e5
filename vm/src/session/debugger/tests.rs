//! Tests of the debugger session with the scripted host.

use super::*;
use crate::host::RunResult;
use crate::host::scripted::ScriptedHost;
use crate::machine::value::{Record, Value};
use text::show;
use tiss_compiler::lower::LowerOptions;
use tisslang::cost::Dim;

const PLAN: &str = r#"TASK "Debug me"

DEFINE_TASK "lint" {
    RUN "lint"
    VAR linted = TRUE
}

STEP "Write" {
    WRITE "a.txt" <<TEXT
hello
TEXT
    CALL "lint"
    VAR n = 3
}

STEP "Check" {
    RUN "cat a.txt"
    ASSERT LAST_RUN.EXIT_CODE == 0
    VAR title = "Hello"
    IF title == "Hello" { LOG "yes" }
}
"#;

fn program(src: &str, strip: bool) -> Program {
    let (module, _) =
        tiss_compiler::compile("plan.tiss", src.as_bytes(), LowerOptions { strip_source: strip })
            .unwrap_or_else(|fe| panic!("the test plan compiles: {:?}", fe.diagnostics));
    Program::new(module).expect("the test plan loads")
}

fn host() -> ScriptedHost {
    ScriptedHost::with_runs(|req| {
        Ok(RunResult {
            command: req.command.clone(),
            stdout: if req.command == "cat a.txt" { "hello\n".into() } else { String::new() },
            stderr: String::new(),
            exit_code: 0,
            duration_ms: 1,
            timed_out: false,
        })
    })
}

fn session(src: &str) -> (Debugger<ScriptedHost>, String) {
    let program = program(src, false);
    let machine = Machine::new(&program);
    let mut debugger = Debugger::new(program, machine, host());
    let start = debugger.start();
    (debugger, start.text)
}

/// The replies to `commands`, each after `> command`.
fn transcript(debugger: &mut Debugger<ScriptedHost>, commands: &[&str]) -> String {
    let mut out = String::new();
    for command in commands {
        let reply = debugger.command(command);
        out.push_str(&format!("> {command}\n"));
        if !reply.text.is_empty() {
            out.push_str(&reply.text);
            out.push('\n');
        }
    }
    out
}

fn exact(debugger: &mut Debugger<ScriptedHost>, commands: &[&str], expected: &str) {
    let got = transcript(debugger, commands);
    assert_eq!(got, expected, "\n--- got ---\n{got}\n--- expected ---\n{expected}");
}

#[test]
fn starts_paused_before_the_first_statement() {
    let (d, start) = session(PLAN);
    assert_eq!(d.banner(), "debugging \"Debug me\" (help lists the commands)");
    assert_eq!(
        start,
        "paused before the first statement at line 8:1, entering step \"Write\"\n    8 | STEP \"Write\" {"
    );
    assert_eq!(d.machine.meters[Dim::Instructions], 0, "nothing ran");
    assert!(!d.has_ended());
    assert_eq!(d.exit_status(), 0);
}

#[test]
fn line_breakpoints_stop_before_the_line_and_refuse_lines_without_code() {
    let (mut d, _) = session(PLAN);
    exact(
        &mut d,
        &["break 12", "break 12", "break 2", "break 14", "break 99", "break 0", "continue", "print linted"],
        r#"> break 12
breakpoint 1 at line 12
> break 12
breakpoint 1 already stops at line 12
> break 2
line 2 has no code to stop at; the first line with code is 4
> break 14
line 14 has no code to stop at; the nearest lines with code are 13 and 16
> break 99
line 99 is past the end of the plan (21 lines); the last line with code is 20
> break 0
lines are numbered from 1
> continue
hit breakpoint 1 at line 12:5, step "Write"
   12 |     CALL "lint"
> print linted
`linted` is not bound yet (a boolean variable)
"#,
    );
    assert_eq!(d.host.effects, ["write a.txt"], "stopped before the CALL");
}

#[test]
fn step_breakpoints_stop_where_the_step_starts() {
    let (mut d, _) = session(PLAN);
    exact(
        &mut d,
        &[
            "break \"Check\"",
            "break Chek",
            "break \"Nope\"",
            "break \"Check",
            "continue",
            "where",
            "continue",
        ],
        r#"> break "Check"
breakpoint 1 at step "Check"
> break Chek
no step is named "Chek"; did you mean "Check"?
> break "Nope"
no step is named "Nope"; the steps are "Write", "Check"
> break "Check
"Check has no closing quote
> continue
hit breakpoint 1 at line 16:1, entering step "Check"
   16 | STEP "Check" {
> where
at line 16, column 1
   16 | STEP "Check" {
step path: (no step open)
next: entering step "Check"
call stack, innermost first:
  main at line 16:1
> continue
the plan ended: passed
"#,
    );
    assert!(d.has_ended());
    assert_eq!(d.exit_status(), 0);
}

#[test]
fn step_enters_calls_and_next_steps_over_them() {
    let (mut d, _) = session(PLAN);
    exact(
        &mut d,
        &["break 12", "continue", "step", "where", "next", "next", "next"],
        r#"> break 12
breakpoint 1 at line 12
> continue
hit breakpoint 1 at line 12:5, step "Write"
   12 |     CALL "lint"
> step
at line 4:5, step "Write", task "lint"
    4 |     RUN "lint"
> where
at line 4, column 5
    4 |     RUN "lint"
step path: Write
call stack, innermost first:
  task "lint" at line 4:5
  main at line 12:5
> next
at line 5:5, step "Write", task "lint"
    5 |     VAR linted = TRUE
> next
at line 13:5, step "Write"
   13 |     VAR n = 3
> next
at line 16:1, entering step "Check"
   16 | STEP "Check" {
"#,
    );
    // `next` over the CALL runs the whole task.
    let (mut d, _) = session(PLAN);
    exact(
        &mut d,
        &["next", "next", "next"],
        r#"> next
at line 9:5, step "Write"
    9 |     WRITE "a.txt" <<TEXT
> next
at line 12:5, step "Write"
   12 |     CALL "lint"
> next
at line 13:5, step "Write"
   13 |     VAR n = 3
"#,
    );
    assert_eq!(d.host.effects, ["write a.txt", "run lint"]);
}

#[test]
fn next_stops_at_a_breakpoint_inside_a_call() {
    let (mut d, _) = session(PLAN);
    exact(
        &mut d,
        &["break 5", "break 12", "continue", "next", "next"],
        r#"> break 5
breakpoint 1 at line 5
> break 12
breakpoint 2 at line 12
> continue
hit breakpoint 2 at line 12:5, step "Write"
   12 |     CALL "lint"
> next
hit breakpoint 1 at line 5:5, step "Write", task "lint"
    5 |     VAR linted = TRUE
> next
at line 13:5, step "Write"
   13 |     VAR n = 3
"#,
    );
}

#[test]
fn a_line_breakpoint_stops_once_per_line_and_step_visits_each_statement() {
    let (mut d, _) = session(PLAN);
    exact(
        &mut d,
        &["break 20", "continue", "step", "step", "step"],
        r#"> break 20
breakpoint 1 at line 20
> continue
hit breakpoint 1 at line 20:5, step "Check"
   20 |     IF title == "Hello" { LOG "yes" }
> step
at line 20:27, step "Check"
   20 |     IF title == "Hello" { LOG "yes" }
> step
the plan ended: passed
> step
the plan has ended (passed): nothing is left to run; where, print, locals and list still work
"#,
    );
    let (mut d, _) = session(PLAN);
    exact(
        &mut d,
        &["break 20", "continue", "continue"],
        "> break 20\nbreakpoint 1 at line 20\n> continue\nhit breakpoint 1 at line 20:5, step \"Check\"\n   20 |     IF title == \"Hello\" { LOG \"yes\" }\n> continue\nthe plan ended: passed\n",
    );
}

#[test]
fn print_shows_variables_last_run_cost_and_fields() {
    let (mut d, _) = session(PLAN);
    exact(
        &mut d,
        &[
            "print",
            "print LAST_RUN",
            "break 18",
            "continue",
            "print n",
            "print title",
            "print tilte",
            "print LAST_RUN",
            "print LAST_RUN.STDOUT",
            "print LAST_RUN.STDOT",
            "print LAST_RUN.KIND",
            "print n.FIELD",
            "print COST",
            "print COST.RUN_COUNT",
        ],
        r#"> print
print needs a name: print NAME, print NAME.FIELD, print LAST_RUN or print COST
> print LAST_RUN
LAST_RUN is not set: no RUN has happened yet
> break 18
breakpoint 1 at line 18
> continue
hit breakpoint 1 at line 18:5, step "Check"
   18 |     ASSERT LAST_RUN.EXIT_CODE == 0
> print n
n = 3
> print title
`title` is not bound yet (a string variable)
> print tilte
no variable is named `tilte`; did you mean `title`?
> print LAST_RUN
LAST_RUN = LAST_RUN record
  STDOUT    = "hello\n"
  STDERR    = ""
  EXIT_CODE = 0
  DURATION  = 1ms
  TIMED_OUT = FALSE
  COMMAND   = "cat a.txt"
> print LAST_RUN.STDOUT
LAST_RUN.STDOUT = "hello\n"
> print LAST_RUN.STDOT
a LAST_RUN record has no field `STDOT`; did you mean `LAST_RUN.STDOUT`?
> print LAST_RUN.KIND
a LAST_RUN record has no field `KIND`; its fields are STDOUT, STDERR, EXIT_CODE, DURATION, TIMED_OUT, COMMAND
> print n.FIELD
`n` is an integer: it has no field `FIELD`
> print COST
COST = COST record: what step "Check" has spent so far
  API_CALLS      = 0
  TOKEN_COUNT    = 0
  EXECUTION_TIME = 0s
  RUN_COUNT      = 1
  INSTRUCTIONS   = 2
> print COST.RUN_COUNT
COST.RUN_COUNT = 1
"#,
    );
}

#[test]
fn locals_lists_bound_variables_shortened() {
    let src = "TASK \"t\"\nSTEP \"s\" {\n    VAR long = \"".to_string()
        + &"x".repeat(300)
        + "\"\n    VAR d = 1500ms\n    VAR late = 1\n}\n";
    let (mut d, _) = session(&src);
    exact(
        &mut d,
        &["break 5", "locals", "continue", "locals"],
        &format!(
            "> break 5\nbreakpoint 1 at line 5\n> locals\nno variable is bound yet\n> continue\nhit breakpoint 1 at line 5:5, step \"s\"\n    5 |     VAR late = 1\n> locals\nlong: string = \"{}\" … [220 characters omitted] … \"{}\"\nd: duration = 1500ms\n",
            "x".repeat(40),
            "x".repeat(40)
        ),
    );
}

#[test]
fn list_marks_the_current_line_and_breakpoints() {
    let (mut d, _) = session(PLAN);
    exact(
        &mut d,
        &["break \"Check\"", "list", "list 2", "list 40", "list x"],
        r#"> break "Check"
breakpoint 1 at step "Check"
> list
     3 | DEFINE_TASK "lint" {
     4 |     RUN "lint"
     5 |     VAR linted = TRUE
     6 | }
     7 |
->   8 | STEP "Write" {
     9 |     WRITE "a.txt" <<TEXT
    10 | hello
    11 | TEXT
    12 |     CALL "lint"
    13 |     VAR n = 3
> list 2
    1 | TASK "Debug me"
    2 |
    3 | DEFINE_TASK "lint" {
    4 |     RUN "lint"
    5 |     VAR linted = TRUE
    6 | }
    7 |
> list 40
line 40 is past the end of the plan (21 lines)
> list x
list takes a line number, not `x`
"#,
    );
    exact(
        &mut d,
        &["continue", "list"],
        r#"> continue
hit breakpoint 1 at line 16:1, entering step "Check"
   16 | STEP "Check" {
> list
    11 | TEXT
    12 |     CALL "lint"
    13 |     VAR n = 3
    14 | }
    15 |
->* 16 | STEP "Check" {
    17 |     RUN "cat a.txt"
    18 |     ASSERT LAST_RUN.EXIT_CODE == 0
    19 |     VAR title = "Hello"
    20 |     IF title == "Hello" { LOG "yes" }
    21 | }
"#,
    );
}

#[test]
fn a_stripped_plan_still_debugs_without_its_source() {
    let program = program(PLAN, true);
    let machine = Machine::new(&program);
    let mut d = Debugger::new(program, machine, host());
    assert_eq!(d.start().text, "paused before the first statement at line 8:1, entering step \"Write\"");
    exact(
        &mut d,
        &["list", "where", "break 12", "continue"],
        "> list\nno source to show: the bytecode has no source: it was compiled with `tissc compile --strip`; \
         `tissvm disasm` shows the code\n> where\nat line 8, column 1\nno source to show: the bytecode has no \
         source: it was compiled with `tissc compile --strip`\nstep path: (no step open)\nnext: entering step \
         \"Write\"\ncall stack, innermost first:\n  main at line 8:1\n> break 12\nbreakpoint 1 at line 12\n\
         > continue\nhit breakpoint 1 at line 12:5, step \"Write\"\n",
    );
    assert!(
        d.banner().ends_with(
            "(help lists the commands)\nno source to show: the bytecode has no source: it was \
                                  compiled with `tissc compile --strip`"
        ),
        "{}",
        d.banner()
    );
}

#[test]
fn a_plan_keeping_its_source_hash_shows_the_matching_file_beside_it() {
    let (mut module, _) = tiss_compiler::compile("plan.tiss", PLAN.as_bytes(), LowerOptions::default())
        .unwrap_or_else(|fe| panic!("the test plan compiles: {:?}", fe.diagnostics));
    module.source.drop_text();
    let program = Program::new(module).expect("the test plan loads");
    let machine = Machine::new(&program);
    let mut d = Debugger::new(program, machine, host());
    // No plan file given (a snapshot's bytecode): nowhere to look.
    assert!(
        d.banner().ends_with(&format!("\nno source to show: {}", Unavailable::NoPlanFile)),
        "{}",
        d.banner()
    );
    assert_eq!(d.start().text, "paused before the first statement at line 8:1, entering step \"Write\"");

    let dir = tempfile::tempdir().expect("temp dir");
    let tbc = dir.path().join("plan.tbc");
    let tiss = dir.path().join("plan.tiss");
    std::fs::write(&tiss, PLAN).unwrap();
    d.find_source(&tbc);
    assert_eq!(d.banner(), "debugging \"Debug me\" (help lists the commands)");
    assert_eq!(d.command("list 1").text.lines().next(), Some("    1 | TASK \"Debug me\""));
    assert!(d.command("where").text.starts_with("at line 8, column 1\n    8 | STEP \"Write\" {\n"));

    // Edited since it was compiled: its lines would not be the code's.
    std::fs::write(&tiss, PLAN.replace("Debug me", "Debug you")).unwrap();
    d.find_source(&tbc);
    let why = Unavailable::Changed { path: tiss.clone() }.to_string();
    assert_eq!(d.command("list").text, format!("no source to show: {why}; `tissvm disasm` shows the code"));
    assert!(d.command("where").text.starts_with(&format!("at line 8, column 1\nno source to show: {why}\n")));
    std::fs::remove_file(&tiss).unwrap();
    d.find_source(&tbc);
    let why = Unavailable::Missing { path: tiss }.to_string();
    assert!(d.banner().ends_with(&format!("\nno source to show: {why}")), "{}", d.banner());
}

#[test]
fn delete_removes_breakpoints() {
    let (mut d, _) = session(PLAN);
    exact(
        &mut d,
        &[
            "delete", "break 4", "break 13", "break", "delete 7", "delete x", "delete 1", "break",
            "continue", "delete", "break",
        ],
        r#"> delete
no breakpoints to delete
> break 4
breakpoint 1 at line 4
> break 13
breakpoint 2 at line 13
> break
breakpoint 1 at line 4
breakpoint 2 at line 13
> delete 7
no breakpoint 7; the breakpoints are 1, 2
> delete x
delete takes a breakpoint number, not `x`: `break` lists them
> delete 1
deleted breakpoint 1 at line 4
> break
breakpoint 2 at line 13
> continue
hit breakpoint 2 at line 13:5, step "Write"
   13 |     VAR n = 3
> delete
deleted the breakpoint
> break
no breakpoints
"#,
    );
    assert!(d.breakpoints().is_empty());
    d.command("break 13");
    assert_eq!(d.breakpoints()[0].target, Target::Line(13));
}

#[test]
fn unknown_commands_suggest_and_list_the_commands() {
    let (mut d, _) = session(PLAN);
    exact(
        &mut d,
        &["contineu", "frobnicate", "where now", "s x"],
        r#"> contineu
unknown command `contineu`; did you mean `continue`?
commands: break, delete, continue, step, next, print, locals, where, list, save, quit, help
> frobnicate
unknown command `frobnicate`
commands: break, delete, continue, step, next, print, locals, where, list, save, quit, help
> where now
`where` takes no argument
> s x
`step` takes no argument
"#,
    );
    let help = d.command("help").text;
    for (name, ..) in COMMANDS {
        assert!(help.contains(&format!("\n  {name}")), "{name} in {help}");
    }
    assert_eq!(d.command("quit"), Reply { text: String::new(), quit: true });
    assert!(d.command("q").quit);
}

#[test]
fn an_empty_line_repeats_step_or_next() {
    let (mut d, _) = session(PLAN);
    exact(
        &mut d,
        &["", "next", "", "where", ""],
        r#"> 
> next
at line 9:5, step "Write"
    9 |     WRITE "a.txt" <<TEXT
> 
at line 12:5, step "Write"
   12 |     CALL "lint"
> where
at line 12, column 5
   12 |     CALL "lint"
step path: Write
call stack, innermost first:
  main at line 12:5
> 
"#,
    );
}

#[test]
fn a_failure_ends_the_run_and_inspection_still_works() {
    let src =
        "TASK \"t\"\nSTEP \"s\" {\n    VAR x = \"a\"\n    ASSERT x == \"b\" MESSAGE \"x is wrong\"\n}\n";
    let (mut d, _) = session(src);
    exact(
        &mut d,
        &["continue", "where", "print x", "list", "next", "save x.snap"],
        r#"> continue
the plan ended: failed
  assertion_failed: x is wrong
  in step: s
  at line 4, column 5
  condition: x == "b"
  x = "a"
> where
the plan has ended: failed (assertion_failed)
at line 4, column 5
step path: s
> print x
x = "a"
> list
    1 | TASK "t"
    2 | STEP "s" {
    3 |     VAR x = "a"
->  4 |     ASSERT x == "b" MESSAGE "x is wrong"
    5 | }
> next
the plan has ended (failed): nothing is left to run; where, print, locals and list still work
> save x.snap
the plan has ended (failed); a snapshot holds a run that can go on, and this one cannot
"#,
    );
    assert_eq!(d.exit_status(), 1);
}

#[test]
fn a_budget_failure_has_its_own_status() {
    let src = "TASK \"t\"\nSET_BUDGET RUN_COUNT = 1\nSTEP \"s\" {\n    RUN \"a\"\n    RUN \"b\"\n}\n";
    let (mut d, _) = session(src);
    let text = d.command("continue").text;
    assert!(text.starts_with("the plan ended: failed\n  budget_exceeded: "), "{text}");
    assert_eq!(d.exit_status(), 4);
}

const PAUSING: &str =
    "TASK \"t\"\nSTEP \"s\" {\n    VAR x = \"a\"\n    PAUSE \"look\"\n    VAR x = \"b\"\n}\n";

#[test]
fn a_suspension_waits_and_save_writes_a_snapshot_to_answer() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut d, _) = session(PAUSING);
    assert_eq!(
        d.command("save x.snap").text,
        "save is not available in this session: it has no workspace to record"
    );
    d.save_info = Some(SaveInfo {
        workspace: dir.path().to_path_buf(),
        answers_file: None,
        options: RememberedOptions::default(),
        key_file: Ok(KeyFile { path: dir.path().join("key/snapshot.key") }),
    });
    exact(
        &mut d,
        &["continue", "where"],
        r#"> continue
suspended at line 4:5, step "s"
    4 |     PAUSE "look"
waiting for an answer to PAUSE "look": none is available (no terminal, --non-interactive, or the answers ran out)
`save FILE` writes a snapshot; `tissvm resume FILE --answer continue` continues it
> where
at line 4, column 5
    4 |     PAUSE "look"
step path: s
call stack, innermost first:
  main at line 4:5
waiting for an answer to PAUSE "look"
"#,
    );
    let file = dir.path().join("paused.snap");
    let reply = d.command(&format!("save {}", file.display())).text;
    assert!(reply.ends_with("paused.snap --answer continue"), "{reply}");
    let snap = snapshot::read_snapshot(&std::fs::read(&file).unwrap()).expect("the snapshot reads back");
    assert!(matches!(snap.machine.status, Status::Suspended(Suspension::Interaction { .. })));
    assert_eq!(snap.workspace, dir.path());
    assert!(snap.signed, "signed with the key, made for it");
    let key = KeyFile { path: dir.path().join("key/snapshot.key") }.load().unwrap().expect("a key");
    assert!(snapshot::signed_by(&std::fs::read(&file).unwrap(), &key));
    // Answered, the run goes on from the PAUSE.
    let program = Program::new(snap.module).unwrap();
    let mut machine = snap.machine;
    let mut answered = host();
    answered.answers.push_back(crate::host::Answer::Continue);
    assert_eq!(machine.run(&program, &mut answered), Outcome::Completed);
    assert_eq!(machine.slots[0], Some(Value::Str("b".into())));
    // The session itself can go on when an answer arrives.
    d.host.answers.push_back(crate::host::Answer::Continue);
    assert_eq!(d.command("continue").text, "the plan ended: passed");
}

#[test]
fn save_at_a_statement_writes_a_snapshot_that_resumes_there() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut d, _) = session(PLAN);
    d.save_info = Some(SaveInfo {
        workspace: dir.path().to_path_buf(),
        answers_file: None,
        options: RememberedOptions::default(),
        key_file: Ok(KeyFile { path: dir.path().join("key/snapshot.key") }),
    });
    exact(
        &mut d,
        &["break 5", "continue"],
        "> break 5\nbreakpoint 1 at line 5\n> continue\nhit breakpoint 1 at line 5:5, step \"Write\", task \"lint\"\n    5 |     VAR linted = TRUE\n",
    );
    let file = dir.path().join("my snap.snap");
    let reply = d.command(&format!("save \"{}\"", file.display())).text;
    assert_eq!(
        reply,
        format!("saved a snapshot to {0}; continue the run with: tissvm resume '{0}'", file.display())
    );
    let snap = snapshot::read_snapshot(&std::fs::read(&file).unwrap()).expect("the snapshot reads back");
    assert_eq!(snap.machine.status, Status::Suspended(Suspension::Requested));
    assert_eq!(snap.machine.pc, d.machine.pc);
    assert_eq!(snap.machine.frames, d.machine.frames);
    assert_eq!(snap.content_hash, d.program.hash());
    let program = Program::new(snap.module).unwrap();
    let mut resumed = snap.machine;
    let mut other = host();
    assert_eq!(resumed.run(&program, &mut other), Outcome::Completed);
    assert_eq!(other.effects, ["run cat a.txt"], "the rest of the run, from inside the CALL");
    // The session goes on too, to the same end.
    assert_eq!(d.command("continue").text, "the plan ended: passed");
    assert_eq!(d.machine.slots, resumed.slots);
    assert_eq!(d.machine.step_records.len(), resumed.step_records.len());
}

#[test]
fn an_unwritable_snapshot_says_why() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut d, _) = session(PLAN);
    d.save_info = Some(SaveInfo {
        workspace: dir.path().to_path_buf(),
        answers_file: None,
        options: RememberedOptions::default(),
        key_file: Err(KeyError::NoLocation),
    });
    let missing = dir.path().join("no/such/dir/x.snap");
    let reply = d.command(&format!("save {}", missing.display())).text;
    assert!(reply.starts_with(&format!("cannot write the snapshot `{}`: ", missing.display())), "{reply}");
    assert_eq!(d.command("save").text, "save needs a file name: save FILE");
}

/// Without a key the snapshot is still saved, unsigned, and the commands
/// that resume it name the workspace, which such a snapshot needs.
#[test]
fn without_a_key_save_writes_an_unsigned_snapshot_and_says_how_to_resume_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut d, _) = session(PLAN);
    d.save_info = Some(SaveInfo {
        workspace: dir.path().to_path_buf(),
        answers_file: None,
        options: RememberedOptions::default(),
        key_file: Err(KeyError::NoLocation),
    });
    let file = dir.path().join("x.snap");
    let reply = d.command(&format!("save {}", file.display())).text;
    assert_eq!(
        reply,
        format!(
            "saved a snapshot to {0}; continue the run with: tissvm resume {0} --workdir {1}\nnote: it is not \
             signed ({2}), so resuming it needs --workdir, as above",
            file.display(),
            dir.path().display(),
            KeyError::NoLocation
        )
    );
    assert!(!snapshot::read_snapshot(&std::fs::read(&file).unwrap()).unwrap().signed);
}

#[test]
fn targets_parse_lines_and_step_names() {
    assert_eq!(Target::parse("12"), Ok(Target::Line(12)));
    assert_eq!(Target::parse(" 7 "), Ok(Target::Line(7)));
    assert_eq!(Target::parse("\"Run the tests\""), Ok(Target::Step("Run the tests".into())));
    assert_eq!(Target::parse("Run the tests"), Ok(Target::Step("Run the tests".into())));
    assert_eq!(Target::parse(r#""say \"hi\" \\ there""#), Ok(Target::Step(r#"say "hi" \ there"#.into())));
    assert_eq!(Target::parse("\"\""), Ok(Target::Step(String::new())));
    assert!(Target::parse("").is_err());
    assert!(Target::parse("0").is_err());
    assert!(Target::parse("99999999999").is_err());
    assert!(Target::parse("\"open").is_err());
    assert!(Target::parse("\"").is_err());
}

#[test]
fn values_show_in_plan_syntax_and_long_strings_keep_head_and_tail() {
    assert_eq!(show(&Value::Bool(true), 10), "TRUE");
    assert_eq!(show(&Value::Duration(90_000), 10), "90s");
    assert_eq!(show(&Value::Int(-3), 10), "-3");
    assert_eq!(show(&Value::Str("a\"b\n".into()), 10), r#""a\"b\n""#);
    assert_eq!(show(&Value::Str("abcdefghij".into()), 4), r#""ab" … [6 characters omitted] … "ij""#);
    let review = Value::Record(Box::new(Record::Review { approved: false, comment: "no".into() }));
    assert_eq!(show(&review, 10), r#"{APPROVED = FALSE, COMMENT = "no"}"#);
}

#[test]
fn breakpoints_sharing_an_instruction_hit_together_and_delete_one_by_one() {
    let (mut d, _) = session(PLAN);
    exact(
        &mut d,
        &["break 16", "break \"Check\"", "continue"],
        "> break 16\nbreakpoint 1 at line 16\n> break \"Check\"\nbreakpoint 2 at step \"Check\"\n> continue\nhit \
         breakpoints 1, 2 at line 16:1, entering step \"Check\"\n   16 | STEP \"Check\" {\n",
    );
    let (mut d, _) = session(PLAN);
    exact(
        &mut d,
        &["break 16", "break \"Check\"", "delete 1", "continue"],
        "> break 16\nbreakpoint 1 at line 16\n> break \"Check\"\nbreakpoint 2 at step \"Check\"\n> delete 1\ndeleted \
         breakpoint 1 at line 16\n> continue\nhit breakpoint 2 at line 16:1, entering step \"Check\"\n   16 | STEP \
         \"Check\" {\n",
    );
    let (mut d, _) = session(PLAN);
    exact(
        &mut d,
        &["break 16", "break 4", "delete", "continue"],
        "> break 16\nbreakpoint 1 at line 16\n> break 4\nbreakpoint 2 at line 4\n> delete\ndeleted all 2 \
         breakpoints\n> continue\nthe plan ended: passed\n",
    );
}

#[test]
fn print_marks_text_from_a_file_as_tainted() {
    let src = "TASK \"t\"\nSTEP \"s\" {\n    WRITE \"a.txt\" FROM \"hi\"\n    READ \"a.txt\" AS got\n    \
               VAR plain = \"hi\"\n    LOG \"end\"\n}\n";
    let (mut d, _) = session(src);
    let got = transcript(&mut d, &["break 6", "continue", "print got", "print plain"]);
    assert!(got.contains("> print got\ngot = \"hi\" (tainted: from a model or a file)\n"), "{got}");
    assert!(got.contains("> print plain\nplain = \"hi\"\n"), "{got}");
}
