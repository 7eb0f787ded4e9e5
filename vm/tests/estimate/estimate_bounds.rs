//! `tiss_vm::analysis::estimate` on plans of every shape: exact golden bounds, the
//! equality with the bounds the compiler stores (every example, generated
//! plans), and bytecode it refuses.

use tiss_vm::analysis::estimate::{CostModel, Estimate, estimate};
use tisslang::analysis::cost_model::DEFAULT_RUN_MAX_MS;
use tisslang::cost::Dim;
#[allow(dead_code)] // only `generate` is used here
use tisslang::cost::PerDim;
use tisslang::cost::bound::CostBound;
use tisslang::isa::Instr;
use tisslang::module::Module;

fn compile(src: &str) -> Module {
    match tiss_compiler::compile("t.tiss", src.as_bytes(), Default::default()) {
        Ok((module, _)) => module,
        Err(fe) => panic!("{:#?}", fe.diagnostics),
    }
}

fn default_estimate(m: &Module) -> Estimate {
    estimate(m, &CostModel::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// Builds a bound from `(min, max)` per dimension, in `Dim::ALL` order:
/// api_calls, token_count, execution_time_ms, run_count, instructions.
fn b(dims: [(u64, u64); 5]) -> CostBound {
    CostBound { min: PerDim::new(dims.map(|d| d.0)), max: PerDim::new(dims.map(|d| d.1)) }
}

/// The analysis of the bytecode gives exactly the compiler's bounds.
fn assert_matches_compiler(m: &Module, what: &str) {
    let e = default_estimate(m);
    assert_eq!(e.total, m.bound, "{what}: plan bound");
    for (i, task) in m.tasks.iter().enumerate() {
        assert_eq!(e.tasks[i], task.bound, "{what}: task {i}");
    }
    let in_code: Vec<u32> = m
        .code
        .iter()
        .filter_map(|i| match i {
            Instr::StepEnter { step } => Some(*step),
            _ => None,
        })
        .collect();
    for (i, step) in m.steps.iter().enumerate() {
        if in_code.contains(&(i as u32)) {
            assert_eq!(e.steps[i], Some(step.bound), "{what}: step {i}");
        } else {
            assert_eq!(e.steps[i], None, "{what}: step {i} has no code (ESTIMATE_COST)");
        }
    }
}

#[test]
fn straight_line() {
    let m = compile("TASK \"t\"\nSTEP \"s\" {\n    RUN \"a\"\n    RUN \"b\" TIMEOUT 5s\n}\n");
    let e = default_estimate(&m);
    // STEP_ENTER, PUSH a, RUN, PUSH b, PUSH 5s, RUN, STEP_EXIT (+ HALT in the total).
    let step = b([(0, 0), (0, 0), (0, DEFAULT_RUN_MAX_MS + 5_000), (2, 2), (7, 7)]);
    assert_eq!(e.steps[0], Some(step));
    assert_eq!(e.total, b([(0, 0), (0, 0), (0, DEFAULT_RUN_MAX_MS + 5_000), (2, 2), (8, 8)]));
    assert_matches_compiler(&m, "straight line");
}

const SHAPES: &str = r#"TASK "shapes"
DEFINE_TASK "build" {
    RUN "make" TIMEOUT 2m
    PROMPT_AGENT "fix it" WITH x
}
STEP "outer" {
    VAR x = "v"
    IF x == "v" {
        RUN "a"
        STEP "inner" {
            CALL "build"
        }
    } ELSE IF x == "w" {
        TRY {
            RUN "b" TIMEOUT 1s
            ASSERT LAST_RUN.EXIT_CODE == 0
        } CATCH {
            RUN "c" TIMEOUT 3s
        }
    }
    CHOOSE "which" {
        OPTION "one" { LOG "1" }
        OPTION "two" { RUN "d" TIMEOUT 10s RUN "e" TIMEOUT 10s }
    }
    ESTIMATE_COST INTO e {
        RUN "never"
        STEP "hidden" { PROMPT_AGENT "q" }
    }
}
"#;

/// IF / ELSE IF, a nested step with a CALL, a TRY, a CHOOSE and an
/// ESTIMATE_COST in one step. Worked by hand from the listing:
/// the step's prefix is 7 instructions (STEP_ENTER .. JUMP_IF_FALSE); then
/// - THEN: PUSH, RUN a (10m), the inner step (STEP_ENTER, CALL = 6 of the
///   task, STEP_EXIT: 9), JUMP: 12 more, 2 RUNs, 0..12m, 1 prompt;
/// - ELSE IF false: 4 more; ELSE IF true and the TRY completes: 4 + 8 + 1;
/// - the handler: entered with at least 11, at most 20 (through the TRY's
///   JUMP) instructions and 0..1 RUN (0..1s), plus 3 (RUN c, 0..3s);
/// - CHOOSE (1) then 3 (LOG) or 6 (2 RUNs, 0..20s); ESTIMATE, STORE,
///   STEP_EXIT: 3 — the estimated block adds nothing.
#[test]
fn nested_if_try_choose_call_estimate() {
    let m = compile(SHAPES);
    let e = default_estimate(&m);
    // "fix it": at least 6 bytes / 8 = 0 tokens (the WITH variable counts 0); at
    // most ceil(6 / 4) + 16 + 1000 for the one WITH variable, +1024 completion.
    let task = b([(1, 1), (0, 2042), (0, 120_000), (1, 1), (6, 6)]);
    assert_eq!(e.tasks, vec![task]);
    let inner = b([(1, 1), (0, 2042), (0, 120_000), (1, 1), (9, 9)]);
    let outer = b([(0, 1), (0, 2042), (0, 600_000 + 120_000 + 20_000), (0, 4), (18, 33)]);
    assert_eq!(e.steps, vec![Some(outer), Some(inner), None]);
    let mut total = outer;
    total.add(Dim::Instructions, 1); // HALT
    assert_eq!(e.total, total);
    assert_eq!(e.main_steps, vec![(0, 0), (1, 1)]);
    assert_eq!(e.top_level_steps().collect::<Vec<_>>(), vec![0]);
    assert_matches_compiler(&m, "shapes");
}

/// A TRY nested in a TRY's body, the outer handler building a message.
#[test]
fn nested_try() {
    let m = compile(
        r#"TASK "try"
STEP "s" {
    TRY {
        RUN "a" TIMEOUT 1s
        TRY {
            RUN "b" TIMEOUT 2s
        } CATCH {
            RUN "c" TIMEOUT 4s
        }
    } CATCH AS e {
        LOG "${e.MESSAGE}"
    }
}
"#,
    );
    let e = default_estimate(&m);
    // Inner TRY: completes with 8 instructions, 2 RUNs (0..3s); its handler
    // starts with 4..8, 1..2 RUNs and adds 3 and a RUN: 7..11, 2..3 RUNs, 0..7s.
    // Outer handler: entered with 1 (STEP_ENTER) .. 12 (through its JUMP),
    // adds 4: 5..16; the completed path is 8..12. STEP_EXIT: +1.
    assert_eq!(e.steps[0], Some(b([(0, 0), (0, 0), (0, 7_000), (0, 3), (6, 17)])));
    assert_eq!(e.total, b([(0, 0), (0, 0), (0, 7_000), (0, 3), (7, 18)]));
    assert_matches_compiler(&m, "nested try");
}

/// Short-circuit OR and an ASSERT whose message is built only on failure
/// (FAIL counted as going on, as the compiler counts it).
#[test]
fn short_circuit_and_fail() {
    let m = compile(
        "TASK \"c\"\nSTEP \"s\" {\n    VAR a = TRUE\n    ASSERT a OR FILE \"x\" EXISTS MESSAGE \"bad ${a}\"\n}\n",
    );
    let e = default_estimate(&m);
    // 5 to the first JUMP_IF_TRUE; `a` true: PUSH TRUE, JUMP_IF_TRUE, STEP_EXIT (8);
    // `a` false: PUSH_CONST, FILE_EXISTS, JUMP, JUMP_IF_TRUE, then LOAD, INTERP,
    // FAIL, STEP_EXIT (13).
    assert_eq!(e.steps[0], Some(b([(0, 0), (0, 0), (0, 0), (0, 0), (8, 13)])));
    assert_matches_compiler(&m, "short circuit");
    // Of two variables, both are computed and combined (OR): 9 to the
    // JUMP_IF_TRUE; true: STEP_EXIT (10); false: LOAD, INTERP, FAIL, STEP_EXIT (13).
    let m = compile(
        "TASK \"c\"\nSTEP \"s\" {\n    VAR a = TRUE\n    VAR b = FALSE\n    ASSERT a OR b MESSAGE \"bad ${a}\"\n}\n",
    );
    let e = default_estimate(&m);
    assert_eq!(e.steps[0], Some(b([(0, 0), (0, 0), (0, 0), (0, 0), (10, 13)])));
    assert_matches_compiler(&m, "combined");
}

/// CALL chains, a CHOOSE and steps inside tasks, and a task called twice.
#[test]
fn calls_and_steps_in_tasks() {
    let m = compile(
        r#"TASK "calls"
DEFINE_TASK "two" {
    RUN "x" TIMEOUT 1s
    CALL "one"
    STEP "in two" {
        CHOOSE { OPTION "a" { CALL "one" } OPTION "b" { } }
    }
}
DEFINE_TASK "one" {
    RUN "y" TIMEOUT 2s
}
STEP "s" {
    CALL "two"
    CALL "two"
}
"#,
    );
    let e = default_estimate(&m);
    // one: PUSH, PUSH, RUN, RETURN.
    let one = b([(0, 0), (0, 0), (0, 2_000), (1, 1), (4, 4)]);
    // in two: STEP_ENTER, CHOOSE, then CALL one + JUMP (1 + 4 + 1) or nothing, STEP_EXIT.
    let in_two = b([(0, 0), (0, 0), (0, 2_000), (0, 1), (3, 9)]);
    // two: PUSH, PUSH, RUN, CALL one (1 + 4), the step, RETURN.
    let two = b([(0, 0), (0, 0), (0, 1_000 + 2_000 + 2_000), (2, 3), (3 + 5 + 3 + 1, 3 + 5 + 9 + 1)]);
    assert_eq!(e.tasks, vec![two, one]);
    let tasks_in_order: Vec<&str> = m.tasks.iter().map(|t| m.string(t.name).unwrap()).collect();
    assert_eq!(tasks_in_order, ["two", "one"]);
    // s: STEP_ENTER, 2 × (CALL + two), STEP_EXIT.
    let s = b([(0, 0), (0, 0), (0, 10_000), (4, 6), (2 + 2 * 13, 2 + 2 * 19)]);
    let steps: Vec<(String, Option<CostBound>)> =
        m.steps.iter().zip(&e.steps).map(|(i, b)| (m.string(i.name).unwrap().to_string(), *b)).collect();
    assert!(steps.contains(&("in two".to_string(), Some(in_two))), "{steps:?}");
    assert!(steps.contains(&("s".to_string(), Some(s))), "{steps:?}");
    assert_matches_compiler(&m, "calls");
}

/// Prompt tokens follow the shared model: the query as the manifest has it
/// (a literal's text, escapes resolved; an interpolated query as written),
/// 1000 per context variable, the default context being every READ
/// variable outside ESTIMATE_COST plus LAST_RUN.
#[test]
fn prompt_tokens() {
    let m = compile(
        r#"TASK "p"
STEP "s" {
    READ "a.txt" AS a
    READ "b.txt" AS b
    VAR who = "me"
    PROMPT_AGENT "say \"hi\""
    PROMPT_AGENT "hi ${who}" WITH a
    ESTIMATE_COST { READ "c.txt" AS c }
}
"#,
    );
    let e = default_estimate(&m);
    // At most: `say "hi"` = 8 characters: 2 + 16 + 3 × 1000 (a, b, LAST_RUN);
    // `hi ${who}` = 9 characters: 3 + 16 + 1000. At least: 8 bytes / 8 = 1, and
    // `hi ` = 3 literal bytes / 8 = 0: context and interpolations count 0.
    let tokens = (2 + 16 + 3000) + (3 + 16 + 1000);
    assert_eq!(e.total.get(Dim::TokenCount), (1, tokens + 2 * 1024));
    assert_eq!(e.total.get(Dim::ApiCalls), (2, 2));
    assert_matches_compiler(&m, "prompts");
}

/// An empty TRY body and handler: the handler path still counts (the
/// compiler's rule), which lowers the minimum by the skipped JUMP.
#[test]
fn empty_try() {
    let m = compile("TASK \"t\"\nSTEP \"s\" { TRY { } CATCH { } }\n");
    let e = default_estimate(&m);
    assert_eq!(e.steps[0].unwrap().get(Dim::Instructions), (2, 3));
    assert_matches_compiler(&m, "empty try");
}

#[test]
fn every_example_matches_the_compiler() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).expect("examples/") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|e| e != "tiss") {
            continue;
        }
        let src = std::fs::read_to_string(&path).expect("example");
        let m = compile(&src);
        assert_matches_compiler(&m, &path.display().to_string());
        // Through the .tbc format as well.
        let loaded = tisslang::container::load(&tisslang::container::encode(&m)).expect("loads");
        assert_eq!(default_estimate(&loaded), default_estimate(&m));
        checked += 1;
    }
    assert!(checked >= 8, "{checked} examples");
}

#[test]
fn generated_plan_matches_the_compiler() {
    let m = compile(&crate::plan_gen::generate(3_000));
    assert!(m.tasks.len() > 40 && m.handlers.len() > 40);
    assert_matches_compiler(&m, "generated plan");
    let e = default_estimate(&m);
    let runs = m.code.iter().filter(|i| matches!(i, Instr::Run { .. })).count();
    assert_eq!(e.runs.len(), runs);
    assert_eq!(e.runs.len(), m.manifest.commands.len());
    // Each RUN found its manifest entry (the text as written, its timeout).
    let mut from_manifest: Vec<(u32, String)> =
        m.manifest.commands.iter().map(|c| (c.line, m.string(c.text).unwrap().to_string())).collect();
    let mut found: Vec<(u32, String)> = e.runs.iter().map(|r| (r.line, r.command.clone())).collect();
    from_manifest.sort();
    found.sort();
    assert_eq!(found, from_manifest);
    assert!(e.runs.iter().any(|r| r.dynamic && r.command.contains("${out_")));
}

// ---- bytecode the verifier refuses before any analysis ------------------------------------------------

fn set_target(m: &mut Module, pc: usize, to: u32) {
    match &mut m.code[pc] {
        Instr::Jump { target } | Instr::JumpIfFalse { target } | Instr::JumpIfTrue { target } => *target = to,
        other => panic!("not a jump: {other:?}"),
    }
}

#[test]
fn a_loop_is_refused() {
    let mut m = compile("TASK \"t\"\nSTEP \"s\" {\n    VAR b = TRUE\n    IF b { LOG \"x\" }\n}\n");
    let jif = m.code.iter().position(|i| matches!(i, Instr::JumpIfFalse { .. })).unwrap();
    set_target(&mut m, jif, 0);
    // The verifier refuses it before any analysis (plans have no loops).
    let e = tisslang::verify::verify(&m).unwrap_err();
    assert!(matches!(e, tisslang::verify::VerifyError::BackwardJump { .. }), "{e}");
}

#[test]
fn a_jump_into_a_step_is_refused() {
    let mut m =
        compile("TASK \"t\"\nSTEP \"s\" {\n    VAR b = TRUE\n    IF b { STEP \"in\" { LOG \"x\" } }\n}\n");
    let jif = m.code.iter().position(|i| matches!(i, Instr::JumpIfFalse { .. })).unwrap();
    let exit = m.code.iter().position(|i| matches!(i, Instr::StepExit { step: 1 })).unwrap();
    set_target(&mut m, jif, exit as u32);
    // The verifier refuses it before any analysis: the step is open on one path only.
    let e = tisslang::verify::verify(&m).unwrap_err();
    assert!(matches!(e, tisslang::verify::VerifyError::StepsMismatch { .. }), "{e}");
}

#[test]
fn recursion_is_refused() {
    let mut m = compile(
        "TASK \"t\"\nDEFINE_TASK \"a\" { LOG \"x\" }\nDEFINE_TASK \"b\" { CALL \"a\" }\nSTEP \"s\" { CALL \"b\" }\n",
    );
    let a = m.tasks[0].entry as usize;
    assert!(matches!(m.code[a], Instr::PushConst { .. }) && matches!(m.code[a + 1], Instr::Log {}));
    m.code[a] = Instr::Call { task: 1 };
    m.code[a + 1] = Instr::Call { task: 1 };
    let e = tisslang::verify::verify(&m).unwrap_err();
    assert!(matches!(e, tisslang::verify::VerifyError::CallCycle { .. }), "{e}");
}

#[test]
fn a_handler_out_of_shape_is_refused() {
    let mut m = compile("TASK \"t\"\nSTEP \"s\" { TRY { LOG \"a\" } CATCH { LOG \"b\" } }\n");
    m.handlers[0].target = m.handlers[0].start;
    let e = tisslang::verify::verify(&m).unwrap_err();
    assert!(matches!(e, tisslang::verify::VerifyError::BackwardJump { .. }), "{e}");
}
