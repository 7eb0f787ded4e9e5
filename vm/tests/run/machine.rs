//! The machine's semantics, statement by statement, against the scripted host.

use tiss_compiler::KeepSource;
use tiss_vm::host::RunResult;
use tiss_vm::host::scripted::ScriptedHost;
use tiss_vm::host::{Answer, HostError};
use tiss_vm::machine::failure::FailureKind;
use tiss_vm::machine::program::Program;
use tiss_vm::machine::value::Value;
use tiss_vm::machine::{Machine, Outcome, StepStatus};
use tisslang::cost::Dim;
use tisslang::isa::Instr;

fn program(src: &str) -> Program {
    let (module, _) = tiss_compiler::compile("t.tiss", src.as_bytes(), KeepSource::Text)
        .unwrap_or_else(|fe| panic!("{:#?}", fe.diagnostics));
    let bytes = tisslang::container::encode(&module);
    let module = tisslang::container::load(&bytes).expect("verified");
    Program::new(module).expect("regexes compile")
}

fn run_with(src: &str, host: &mut ScriptedHost) -> (Machine, Outcome) {
    let program = program(src);
    let mut machine = Machine::new(&program);
    let outcome = machine.run(&program, host);
    (machine, outcome)
}

fn in_step(body: &str) -> String {
    format!("TASK \"t\"\nSTEP \"s\" {{\n{body}\n}}\n")
}

fn echo_host() -> ScriptedHost {
    ScriptedHost::with_runs(|req| {
        let stdout = req.command.strip_prefix("echo ").map(|s| format!("{s}\n")).unwrap_or_default();
        let exit_code = if req.command.starts_with("false") { 1 } else { 0 };
        Ok(RunResult {
            command: req.command.clone(),
            stdout,
            stderr: String::new(),
            exit_code,
            duration_ms: 3,
            timed_out: false,
        })
    })
}

#[test]
fn files_commands_and_assertions() {
    let mut host = echo_host();
    let src = in_step(
        "WRITE \"a/b.txt\" <<EOF\nhello\nEOF\nAPPEND \"a/b.txt\" FROM \"more\"\nREAD \"a/b.txt\" AS text\nASSERT text == \"hello\\nmore\"\nRUN \"echo hi\"\nASSERT LAST_RUN.STDOUT CONTAINS \"hi\" AND LAST_RUN.EXIT_CODE == 0\nMKDIR \"d\"\nDELETE \"a/b.txt\"\nASSERT NOT FILE \"a/b.txt\" EXISTS",
    );
    let (machine, outcome) = run_with(&src, &mut host);
    assert_eq!(outcome, Outcome::Completed, "{:?}", machine.status);
    assert_eq!(
        host.effects,
        ["write a/b.txt", "append a/b.txt", "read a/b.txt", "run echo hi", "mkdir d", "delete a/b.txt"]
    );
    assert_eq!(machine.step_records.len(), 1);
    assert_eq!(machine.step_records[0].status, StepStatus::Passed);
    assert_eq!(machine.meters[Dim::RunCount], 1, "one RUN");
}

#[test]
fn failed_assertion_reports_condition_and_actual_values() {
    let mut host = echo_host();
    let src = in_step("RUN \"echo nope\"\nASSERT LAST_RUN.STDOUT CONTAINS \"yes\" MESSAGE \"wrong output\"");
    let (_, outcome) = run_with(&src, &mut host);
    let Outcome::Failed(f) = outcome else { panic!("{outcome:?}") };
    assert_eq!(f.kind, FailureKind::AssertionFailed);
    assert_eq!(f.message, "wrong output");
    assert_eq!(f.condition.as_deref(), Some("LAST_RUN.STDOUT CONTAINS \"yes\""));
    assert_eq!(f.actual, [("LAST_RUN.STDOUT".to_string(), Some(Value::Str("nope\n".into())))]);
    assert_eq!((f.step.as_str(), f.line), ("s", 4));
}

#[test]
fn try_catches_and_binds_the_error_record() {
    let mut host = echo_host();
    let src = in_step(
        "VAR kind = \"none\"\nTRY {\n  READ \"missing.txt\" AS x\n} CATCH AS e {\n  LOG \"caught ${e.KIND} on line ${e.LINE}\"\n  VAR kind = e.KIND\n}\nASSERT kind == \"command_error\"",
    );
    let (machine, outcome) = run_with(&src, &mut host);
    assert_eq!(outcome, Outcome::Completed, "{:?}", machine.status);
    assert!(
        host.events.iter().any(|e| e.starts_with("log caught command_error on line 5")),
        "{:?}",
        host.events
    );
}

#[test]
fn try_does_not_catch_security_violations() {
    let mut host = echo_host();
    let src = in_step("VAR p = \"../outside\"\nTRY { READ \"${p}\" AS x } CATCH { LOG \"no\" }");
    let (_, outcome) = run_with(&src, &mut host);
    let Outcome::Failed(f) = outcome else { panic!("{outcome:?}") };
    assert_eq!(f.kind, FailureKind::SecurityViolation);
    assert!(host.effects.is_empty(), "nothing touched: {:?}", host.effects);
}

#[test]
fn failures_inside_called_tasks_unwind_to_the_callers_try() {
    let mut host = echo_host();
    let src = "TASK \"t\"\nDEFINE_TASK \"check\" { STEP \"inner\" { RUN \"false\" ASSERT LAST_RUN.EXIT_CODE == 0 } }\nSTEP \"s\" {\n  VAR where = \"\"\n  TRY { CALL \"check\" } CATCH AS e { VAR where = e.STEP }\n  ASSERT where == \"inner\"\n  CALL \"ok\"\n}\nDEFINE_TASK \"ok\" { RUN \"echo fine\" }\n";
    let (machine, outcome) = run_with(src, &mut host);
    assert_eq!(outcome, Outcome::Completed, "{:?}", machine.status);
    assert!(machine.frames.is_empty() && machine.steps.is_empty());
    assert_eq!(host.effects, ["run false", "run echo fine"]);
}

#[test]
fn run_strings_quote_every_interpolated_value() {
    let mut host = echo_host();
    let src = in_step("VAR f = \"a; rm -rf x $(id) `id` 'q'\"\nRUN \"cat ${f}\"\nLOG \"plain ${f}\"");
    let (_, outcome) = run_with(&src, &mut host);
    assert_eq!(outcome, Outcome::Completed);
    assert_eq!(host.effects, [r#"run cat 'a; rm -rf x $(id) `id` '\''q'\'''"#]);
    assert!(host.events.iter().any(|e| e == "log plain a; rm -rf x $(id) `id` 'q' ok"));
}

#[test]
fn if_else_and_values() {
    let mut host = echo_host();
    let src = in_step(
        "VAR n = 3\nVAR t = 1500ms\nIF n > 2 AND t < 2s { VAR r = \"big\" } ELSE IF n == 2 { VAR r = \"two\" } ELSE { VAR r = \"small\" }\nASSERT r == \"big\"\nASSERT \"abc\" STARTS_WITH \"ab\" AND \"abc\" ENDS_WITH \"bc\" AND \"abc\" MATCHES \"^a.c$\" AND \"\" IS_EMPTY\nASSERT \"x\" NOT CONTAINS \"y\" OR FALSE",
    );
    let (machine, outcome) = run_with(&src, &mut host);
    assert_eq!(outcome, Outcome::Completed, "{:?}", machine.status);
}

#[test]
fn env_reaches_later_runs() {
    let seen = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let log = seen.clone();
    let mut host = ScriptedHost::with_runs(move |req| {
        log.borrow_mut().push(req.env.clone());
        Ok(RunResult { command: req.command.clone(), ..RunResult::default() })
    });
    let src = in_step("ENV MODE = \"fast\"\nENV LEVEL = 3\nRUN \"x\"\nENV MODE = \"slow\"\nRUN \"y\"");
    let (_, outcome) = run_with(&src, &mut host);
    assert_eq!(outcome, Outcome::Completed);
    let seen = seen.borrow();
    assert_eq!(seen[0], [("MODE".to_string(), "fast".to_string()), ("LEVEL".to_string(), "3".to_string())]);
    assert_eq!(seen[1], [("LEVEL".to_string(), "3".to_string()), ("MODE".to_string(), "slow".to_string())]);
}

#[test]
fn run_budget_stops_before_the_effect() {
    let mut host = echo_host();
    let src = "TASK \"t\"\nSET_BUDGET RUN_COUNT = 1\nSTEP \"s\" { RUN \"echo 1\" TRY { RUN \"echo 2\" } CATCH { LOG \"caught\" } }\n";
    let (machine, outcome) = run_with(src, &mut host);
    let Outcome::Failed(f) = outcome else { panic!("{outcome:?}") };
    assert_eq!(f.kind, FailureKind::BudgetExceeded);
    assert_eq!(host.effects, ["run echo 1"]);
    // The refused RUN spent nothing: one command spent, one more needed.
    assert_eq!(f.budget.as_ref().map(|b| (b.cap, b.spent, b.needed)), Some((1, 1, Some(1))));
    assert_eq!(machine.step_records[0].status, StepStatus::Failed);
}

#[test]
fn prompts_use_the_mock_provider_and_meter_tokens() {
    let mut host = echo_host();
    let src = in_step(
        "READ \"notes.txt\" AS notes\nPROMPT_AGENT \"Summarise\" INTO summary\nASSERT summary == \"mock answer to: Summarise\"\nASSERT COST.API_CALLS == 1",
    );
    host.files.insert("notes.txt".into(), "some notes".into());
    let (machine, outcome) = run_with(&src, &mut host);
    assert_eq!(outcome, Outcome::Completed, "{:?}", machine.status);
    assert_eq!(machine.meters[Dim::ApiCalls], 1);
    assert!(machine.meters[Dim::TokenCount] > 0);
}

#[test]
fn human_interactions_suspend_without_answers_and_continue_with_them() {
    let src = in_step(
        "PAUSE \"look\"\nREQUEST_REVIEW \"ok?\" INTO r\nCHOOSE { OPTION \"a\" { VAR c = \"a\" } OPTION \"b\" { VAR c = \"b\" } }\nASSERT c == \"b\" AND r.APPROVED",
    );
    let program = program(&src);
    let mut host = echo_host();
    let mut machine = Machine::new(&program);
    assert!(matches!(machine.run(&program, &mut host), Outcome::Suspended(_)));
    let pc = machine.pc;
    host.answers.extend([
        Answer::Continue,
        Answer::Review { approved: true, comment: String::new() },
        Answer::Choice(1),
    ]);
    assert_eq!(machine.pc, pc, "the interaction runs again when answered");
    assert_eq!(machine.run(&program, &mut host), Outcome::Completed, "{:?}", machine.status);
    assert_eq!(machine.interactions, 3);
}

#[test]
fn resuming_without_an_answer_changes_nothing_but_the_clock() {
    let program = program(&in_step("LOG \"before\"\nPAUSE \"look\"\nLOG \"after\""));
    let mut host = echo_host();
    host.tick_ms = 7;
    let mut machine = Machine::new(&program);
    assert!(matches!(machine.run(&program, &mut host), Outcome::Suspended(_)));
    let suspended = machine.clone();
    assert!(matches!(machine.run(&program, &mut host), Outcome::Suspended(_)));
    assert!(
        machine.meters[Dim::ExecutionTime] > suspended.meters[Dim::ExecutionTime],
        "the clock moved: {:?}",
        machine.meters
    );
    assert!(machine.is_unchanged_since(&suspended), "no answer: the same state but for the time");
    host.answers.push_back(Answer::Continue);
    assert_eq!(machine.run(&program, &mut host), Outcome::Completed);
    assert!(!machine.is_unchanged_since(&suspended), "answered: it went on");
    assert!(!suspended.is_unchanged_since(&machine), "time never runs backwards");
}

#[test]
fn review_rejection_without_into_fails() {
    let mut host = echo_host();
    host.answers.push_back(Answer::Review { approved: false, comment: "not yet".into() });
    let (_, outcome) = run_with(&in_step("REQUEST_REVIEW \"ship?\""), &mut host);
    let Outcome::Failed(f) = outcome else { panic!("{outcome:?}") };
    assert_eq!(f.kind, FailureKind::ReviewRejected);
    assert!(f.message.contains("not yet"));
}

#[test]
fn host_errors_map_to_failure_kinds() {
    let mut host = ScriptedHost::with_runs(|_| Err(HostError::Command("cannot start".into())));
    let (_, outcome) = run_with(&in_step("RUN \"x\""), &mut host);
    assert!(matches!(outcome, Outcome::Failed(f) if f.kind == FailureKind::CommandError));
}

#[test]
fn estimates_bind_records_without_running() {
    let mut host = echo_host();
    let src = in_step(
        "ESTIMATE_COST INTO e { RUN \"a\" RUN \"b\" }\nASSERT e.RUN_COUNT == 2 AND e.RUN_COUNT_MIN == 2",
    );
    let (machine, outcome) = run_with(&src, &mut host);
    assert_eq!(outcome, Outcome::Completed, "{:?}", machine.status);
    assert!(host.effects.is_empty());
}

#[test]
fn every_example_runs_to_an_end_against_the_scripted_host() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "tiss") {
            continue;
        }
        let program = program(&std::fs::read_to_string(&path).unwrap());
        let mut host = echo_host();
        host.answers.extend([
            Answer::Continue,
            Answer::Review { approved: true, comment: String::new() },
            Answer::Choice(0),
        ]);
        let mut machine = Machine::new(&program);
        let outcome = machine.run(&program, &mut host);
        assert!(
            !matches!(outcome, Outcome::Trapped(_) | Outcome::Running),
            "{}: {outcome:?}",
            path.display()
        );
    }
}

#[test]
fn the_instruction_cap_survives_a_round_trip_of_the_state() {
    // The taken arm is longer than the cap; the step's minimum (the empty
    // ELSE) fits, so preflight lets the step start.
    let program =
        program(&in_step("VAR t = TRUE\nIF t { VAR a = 1 VAR b = 2 VAR c = 3 VAR d = 4 } ELSE { }"));
    let mut host = echo_host();
    let mut machine = Machine::new(&program);
    machine.cap(tisslang::cost::Dim::Instructions, 10);
    // Stop after two instructions, write the state out and read it back.
    let mut steps = 0;
    assert_eq!(
        machine.run_until(&program, &mut host, |_| {
            steps += 1;
            steps > 2
        }),
        Outcome::Running
    );
    let text = serde_json::to_string(&machine).unwrap();
    let mut restored: Machine = serde_json::from_str(&text).unwrap();
    let Outcome::Failed(f) = restored.run(&program, &mut host) else { panic!("the cap was lost") };
    assert_eq!(f.kind, FailureKind::BudgetExceeded);
    assert_eq!(restored.meters[Dim::Instructions], 10);
    assert_eq!(f.budget.map(|b| b.reason), Some("limit".to_string()));
}

#[test]
fn constants_beyond_32_bits_push_exactly() {
    // 5000h is 18,000,000,000 ms: past u32, so not an inline operand.
    let src = in_step(
        "VAR big = 10000000000\nVAR neg = -3000000000\nVAR long = 5000h\nASSERT big > 9999999999 AND neg < -2999999999 AND long > 4999h\nASSERT big == 10000000000 AND long == 5000h",
    );
    let (machine, outcome) = run_with(&src, &mut ScriptedHost::default());
    assert_eq!(outcome, Outcome::Completed, "{:?}", machine.status);
}

/// AND and OR of conditions that cannot fail combine both sides' values
/// (the AND and OR instructions), in a chain of their own or next to each
/// other in one that jumps (`COST.RUN_COUNT < n` is a path, not inert):
/// every combination of three booleans, against Rust's own operators, in
/// the forms a plan writes them.
#[test]
fn and_or_of_values_give_the_truth_table() {
    type Case = (&'static str, fn(bool, bool, bool) -> bool);
    let cases: [Case; 9] = [
        ("a AND b OR c", |a, b, c| a && b || c),
        ("a OR b AND c", |a, b, c| a || b && c),
        ("NOT (a OR b) AND c", |a, b, c| !(a || b) && c),
        ("(a OR b) AND NOT c", |a, b, c| (a || b) && !c),
        ("a AND b AND c OR NOT a AND NOT b", |a, b, c| a && b && c || !a && !b),
        ("a AND b AND COST.RUN_COUNT < n", |a, b, c| a && b && c),
        ("COST.RUN_COUNT < n OR a OR NOT b", |a, b, c| c || a || !b),
        ("a AND b AND COST.RUN_COUNT < n OR NOT a AND NOT b", |a, b, c| a && b && c || !a && !b),
        ("NOT a OR b OR COST.RUN_COUNT < n", |a, b, c| !a || b || c),
    ];
    for (cond, rust) in cases {
        for bits in 0..8u8 {
            let (a, b, c) = (bits & 4 != 0, bits & 2 != 0, bits & 1 != 0);
            let word = |v: bool| if v { "TRUE" } else { "FALSE" };
            // No RUN has run: `COST.RUN_COUNT < n` is c when n is 1 or 0.
            let src = in_step(&format!(
                "VAR a = {}\nVAR b = {}\nVAR c = {}\nVAR n = {}\nIF {cond} {{ VAR r = \"t\" }} ELSE {{ VAR r = \"f\" }}\nASSERT r == \"{}\"",
                word(a),
                word(b),
                word(c),
                u8::from(c),
                if rust(a, b, c) { "t" } else { "f" }
            ));
            let combined = program(&src)
                .module
                .code
                .iter()
                .filter(|i| matches!(i, Instr::And {} | Instr::Or {}))
                .count();
            assert!(combined > 0, "{cond}: not combined");
            let (machine, outcome) = run_with(&src, &mut ScriptedHost::default());
            assert_eq!(outcome, Outcome::Completed, "{cond} with a={a} b={b} c={c}: {:?}", machine.status);
        }
    }
}

#[test]
fn any_operand_stack_at_any_pc_traps_or_runs_never_panics() {
    // A snapshot can hold any stack: the dispatch loop must not trust it.
    use tiss_vm::machine::value::Value;
    let src = in_step(
        "VAR s = \"text\"\nVAR n = 3\nIF s CONTAINS \"x\" OR s STARTS_WITH \"t\" AND NOT s ENDS_WITH \"y\" THEN { VAR n = 4 }\nASSERT n >= 3 AND s != \"\" AND NOT s IS_EMPTY",
    );
    let program = program(&src);
    let stacks: Vec<Vec<Value>> = vec![
        vec![],
        vec![Value::Int(1)],
        vec![Value::Bool(true)],
        vec![Value::Str("a".into()), Value::Int(2)],
        vec![Value::Int(2), Value::Str("a".into())],
        vec![Value::Duration(1), Value::Int(1)],
        vec![Value::Bool(false), Value::Bool(true)],
        // AND and OR: a boolean under a value of another type, and over one.
        vec![Value::Bool(true), Value::Int(1)],
        vec![Value::Str("a".into()), Value::Bool(true)],
    ];
    for pc in 0..program.module.code.len() as u32 {
        for stack in &stacks {
            let mut machine = Machine::new(&program);
            machine.pc = pc;
            machine.stack = stack.clone();
            let _ = machine.step(&program, &mut ScriptedHost::default());
        }
    }
}
