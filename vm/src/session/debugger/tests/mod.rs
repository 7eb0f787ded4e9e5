//! Tests of the debugger session with the scripted host.

use super::*;
use crate::host::RunResult;
use crate::host::scripted::ScriptedHost;
use crate::machine::value::{Record, Value};
use text::show;
use tiss_compiler::KeepSource;
use tisslang::cost::Dim;

mod breakpoints;
mod save;
mod view;

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
    let (module, _) = tiss_compiler::compile(
        "plan.tiss",
        src.as_bytes(),
        if strip { KeepSource::Nothing } else { KeepSource::Text },
    )
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
fn unknown_commands_suggest_and_list_the_commands() {
    let (mut d, _) = session(PLAN);
    exact(
        &mut d,
        &["contineu", "frobnicate", "where now", "s x"],
        r#"> contineu
unknown command `contineu`; did you mean `continue`?
commands: break, delete, continue, step, next, back, reverse-continue, print, locals, where, list, save, quit, help
> frobnicate
unknown command `frobnicate`
commands: break, delete, continue, step, next, back, reverse-continue, print, locals, where, list, save, quit, help
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

/// The state `back` must give back, whatever the clock said.
fn state(m: &Machine) -> String {
    format!(
        "pc {} instructions {} slots {:?} stack {:?} env {:?} logs {:?} last_run {:?} frames {:?}",
        m.pc,
        m.meters[Dim::Instructions],
        m.slots,
        m.stack,
        m.env,
        m.logs,
        m.last_run,
        m.frames
    )
}

/// Most statements of a plan with many variables are kept without their
/// machine (`history.rs`); `back` rebuilds each from the one kept before it,
/// on the tape: the same state as when the run stood there, no effect done
/// again, nothing shown again.
#[test]
fn back_rebuilds_statements_kept_without_their_machine() {
    let mut src = String::from("TASK \"many\"\n\nSTEP \"s\" {\n");
    for i in 0..120 {
        src.push_str(&format!("    VAR v{i} = \"value {i}\"\n"));
        if i % 10 == 0 {
            src.push_str(&format!(
                "    RUN \"cat a.txt\"\n    LOG \"at {i}: ${{LAST_RUN.STDOUT}}\"\n    ENV E{i} = v{i}\n"
            ));
        }
    }
    src.push_str("}\n");
    let (mut d, _) = session(&src);
    let mut seen = vec![state(&d.machine)];
    while d.ended.is_none() {
        d.command("step");
        if d.ended.is_none() {
            seen.push(state(&d.machine));
        }
    }
    let end = state(&d.machine);
    let whole = d.history.reached.iter().filter(|r| r.machine.is_some()).count();
    assert!(whole * 4 < d.history.reached.len(), "{whole} of {} kept whole", d.history.reached.len());
    let (effects, events) = (d.host.effects.len(), d.host.events.len());
    // From the end: the last statement, then each one before it.
    for (k, expected) in seen.iter().rev().enumerate() {
        let reply = d.command("back").text;
        assert_eq!(&state(&d.machine), expected, "back {k}: {reply:?}");
    }
    assert!(d.command("back").text.contains("nothing before it"));
    assert_eq!((d.host.effects.len(), d.host.events.len()), (effects, events), "done or shown again");
    // Forward again from the start, on the tape, to the same end.
    d.command("continue");
    assert_eq!(state(&d.machine), end);
    assert_eq!((d.host.effects.len(), d.host.events.len()), (effects, events), "done or shown again");
}

/// A log message or condition is evaluated on a copy of the paused run's
/// values, which it holds too: the text it makes counts with them (a copy
/// given them as holding nothing let a message make another 192 MiB).
#[test]
fn a_probe_holds_what_the_paused_run_holds() {
    let mut src = String::from("TASK \"t\"\nSTEP \"s\" {\n    VAR x0 = \"abcdefgh\"\n");
    for i in 0..22 {
        src.push_str(&format!("    VAR x{} = \"${{x{i}}}${{x{i}}}\"\n", i + 1));
    }
    // x22 is 32 MiB; y, z and w 48 MiB each, alive past the LOG: 176 MiB held there.
    src.push_str(
        "    VAR y = \"${x22}${x21}\"\n    VAR z = \"${x21}${x22}\"\n    VAR w = \"${x20}${x22}${x20}\"\n",
    );
    src.push_str("    LOG \"end\"\n    ASSERT y != z AND w != x22\n}\n");
    let (mut debugger, _) = session(&src);
    let log_line = 3 + 22 + 3;
    let message = Some("${x22}${x22}".to_string());
    let spec = Spec { line: log_line, condition: None, hit_condition: None, log_message: message };
    assert!(debugger.replace_line_breakpoints(&[spec])[0].is_ok());
    let logged = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let sink = std::rc::Rc::clone(&logged);
    debugger.on_log = Box::new(move |text| sink.borrow_mut().push(text.to_string()));
    debugger.command("continue");
    let logged = logged.borrow();
    assert_eq!(logged.len(), 1, "{logged:?}");
    assert!(logged[0].starts_with("${x22}${x22} ("), "{}", &logged[0][..logged[0].len().min(200)]);
    assert!(logged[0].contains("more than a run may hold (192 MiB)"), "{}", logged[0]);
}
