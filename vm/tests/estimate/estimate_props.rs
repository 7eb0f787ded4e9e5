//! Property: for random plans (steps mixing RUN, PROMPT_AGENT, IF, TRY,
//! CHOOSE, CALL, ASSERT, nested STEPs and ESTIMATE_COST), run against the
//! scripted host with random exit codes and CHOOSE answers,
//! - the bytecode analysis gives exactly the compiler's stored bounds, and
//! - the metered RUN_COUNT, API_CALLS and INSTRUCTIONS lie within the
//!   static [min, max] (a run ended early by a failed ASSERT: at most max).

use std::fmt::Write;

use proptest::prelude::*;
use tiss_vm::analysis::estimate::{CostModel, estimate};
use tiss_vm::host::Answer;
use tiss_vm::host::RunResult;
use tiss_vm::host::scripted::ScriptedHost;
use tiss_vm::machine::failure::FailureKind;
use tiss_vm::machine::program::Program;
use tiss_vm::machine::{Machine, Outcome};
use tisslang::cost::Dim;

#[derive(Debug, Clone)]
enum S {
    Run { timeout: bool },
    Prompt,
    Assert { built_message: bool },
    Log,
    If(Vec<S>, Option<Vec<S>>),
    Try(Vec<S>, Vec<S>),
    Choose(Vec<Vec<S>>),
    Step(Vec<S>),
    Estimate(Vec<S>),
    Call(usize),
}

fn stmt() -> impl Strategy<Value = S> {
    let leaf = prop_oneof![
        any::<bool>().prop_map(|timeout| S::Run { timeout }),
        Just(S::Prompt),
        any::<bool>().prop_map(|built_message| S::Assert { built_message }),
        Just(S::Log),
        (0usize..8).prop_map(S::Call),
    ];
    leaf.prop_recursive(3, 40, 4, |inner| {
        let block = prop::collection::vec(inner, 0..4);
        prop_oneof![
            (block.clone(), prop::option::of(block.clone())).prop_map(|(t, e)| S::If(t, e)),
            (block.clone(), block.clone()).prop_map(|(b, h)| S::Try(b, h)),
            prop::collection::vec(block.clone(), 2..4).prop_map(S::Choose),
            block.clone().prop_map(S::Step),
            block.prop_map(S::Estimate),
        ]
    })
}

/// Renders statements; `tasks` is how many tasks a CALL here may name
/// (task k calls only tasks below k, so calls are acyclic).
fn render(out: &mut String, stmts: &[S], tasks: usize, depth: usize, counter: &mut usize) {
    let pad = "    ".repeat(depth);
    for s in stmts {
        *counter += 1;
        let n = *counter;
        match s {
            S::Run { timeout: true } => {
                let _ = writeln!(out, "{pad}RUN \"cmd {n}\" TIMEOUT {n}s");
            }
            S::Run { timeout: false } => {
                let _ = writeln!(out, "{pad}RUN \"cmd {n}\"");
            }
            S::Prompt => {
                let _ = writeln!(out, "{pad}PROMPT_AGENT \"question {n}\"");
            }
            S::Assert { built_message: false } => {
                let _ = writeln!(out, "{pad}ASSERT LAST_RUN.EXIT_CODE == 0");
            }
            S::Assert { built_message: true } => {
                let _ = writeln!(
                    out,
                    "{pad}ASSERT LAST_RUN.EXIT_CODE == 0 OR LAST_RUN.STDOUT CONTAINS \"ok\" MESSAGE \"exit ${{LAST_RUN.EXIT_CODE}}\""
                );
            }
            S::Log => {
                let _ = writeln!(out, "{pad}LOG \"note {n}\"");
            }
            S::Call(k) if tasks > 0 => {
                let _ = writeln!(out, "{pad}CALL \"t{}\"", k % tasks);
            }
            S::Call(_) => {
                let _ = writeln!(out, "{pad}LOG \"no task to call\"");
            }
            S::If(then, els) => {
                let _ = writeln!(out, "{pad}IF LAST_RUN.EXIT_CODE == 0 {{");
                render(out, then, tasks, depth + 1, counter);
                match els {
                    Some(els) => {
                        let _ = writeln!(out, "{pad}}} ELSE {{");
                        render(out, els, tasks, depth + 1, counter);
                        let _ = writeln!(out, "{pad}}}");
                    }
                    None => {
                        let _ = writeln!(out, "{pad}}}");
                    }
                }
            }
            S::Try(body, handler) => {
                let _ = writeln!(out, "{pad}TRY {{");
                render(out, body, tasks, depth + 1, counter);
                let _ = writeln!(out, "{pad}}} CATCH {{");
                render(out, handler, tasks, depth + 1, counter);
                let _ = writeln!(out, "{pad}}}");
            }
            S::Choose(options) => {
                let _ = writeln!(out, "{pad}CHOOSE \"pick {n}\" {{");
                for (i, option) in options.iter().enumerate() {
                    let _ = writeln!(out, "{pad}    OPTION \"o{i}\" {{");
                    render(out, option, tasks, depth + 2, counter);
                    let _ = writeln!(out, "{pad}    }}");
                }
                let _ = writeln!(out, "{pad}}}");
            }
            S::Step(body) => {
                let _ = writeln!(out, "{pad}STEP \"nested {n}\" {{");
                render(out, body, tasks, depth + 1, counter);
                let _ = writeln!(out, "{pad}}}");
            }
            S::Estimate(body) => {
                let _ = writeln!(out, "{pad}ESTIMATE_COST INTO est_{n} {{");
                render(out, body, tasks, depth + 1, counter);
                let _ = writeln!(out, "{pad}}}");
            }
        }
    }
}

fn plan(tasks: &[Vec<S>], steps: &[Vec<S>]) -> String {
    let mut out = String::from("TASK \"random\"\n");
    let mut counter = 0;
    for (k, body) in tasks.iter().enumerate() {
        let _ = writeln!(out, "DEFINE_TASK \"t{k}\" {{\n    RUN \"task {k}\"");
        render(&mut out, body, k, 1, &mut counter);
        out.push_str("}\n");
    }
    out.push_str("SETUP {\n    RUN \"init\"\n}\n");
    for (i, body) in steps.iter().enumerate() {
        let _ = writeln!(out, "STEP \"s{i}\" {{");
        render(&mut out, body, tasks.len(), 1, &mut counter);
        out.push_str("}\n");
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn meters_lie_within_the_static_bounds(
        tasks in prop::collection::vec(prop::collection::vec(stmt(), 0..4), 0..3),
        steps in prop::collection::vec(prop::collection::vec(stmt(), 1..5), 1..4),
        exits in prop::collection::vec(prop_oneof![3 => Just(0i64), 1 => Just(1i64)], 1..16),
        choices in prop::collection::vec(0usize..2, 1..16),
    ) {
        let src = plan(&tasks, &steps);
        let (module, _) = tiss_compiler::compile("random.tiss", src.as_bytes(), Default::default())
            .unwrap_or_else(|fe| panic!("{src}\n{:#?}", fe.diagnostics));
        let module = tisslang::container::load(&tisslang::container::encode(&module)).expect("verifies");

        let e = estimate(&module, &CostModel::default()).unwrap_or_else(|e| panic!("{src}\n{e}"));
        prop_assert_eq!(e.total, module.bound, "plan bound\n{}", src);
        for (i, t) in module.tasks.iter().enumerate() {
            prop_assert_eq!(e.tasks[i], t.bound, "task {}\n{}", i, src);
        }
        for (i, s) in module.steps.iter().enumerate() {
            if let Some(bound) = e.steps[i] {
                prop_assert_eq!(bound, s.bound, "step {}\n{}", i, src);
            }
        }

        let mut next = 0usize;
        let mut host = ScriptedHost::with_runs(move |req| {
            let exit_code = exits[next % exits.len()];
            next += 1;
            Ok(RunResult {
                command: req.command.clone(),
                stdout: String::new(),
                stderr: String::new(),
                exit_code,
                duration_ms: 1,
                timed_out: false,
            })
        });
        // Enough answers for every CHOOSE the plan can reach.
        host.answers = (0..256).map(|i| Answer::Choice(choices[i % choices.len()])).collect();
        let program = Program::new(module).expect("loads");
        let mut machine = Machine::new(&program);
        let outcome = machine.run(&program, &mut host);
        let completed = match &outcome {
            Outcome::Completed => true,
            Outcome::Failed(f) if f.kind == FailureKind::AssertionFailed => false,
            other => panic!("{src}\nunexpected outcome {other:?}"),
        };
        for dim in [Dim::RunCount, Dim::ApiCalls, Dim::Instructions] {
            let actual = machine.meters[dim];
            let (min, max) = e.total.get(dim);
            prop_assert!(actual <= max, "{}: {} > max {}\n{}", dim.name(), actual, max, src);
            if completed {
                prop_assert!(actual >= min, "{}: {} < min {}\n{}", dim.name(), actual, min, src);
            }
        }
    }
}

/// Bytecode the verifier accepts never makes the analysis panic: random
/// jump targets, handler fields and CHOOSE targets on a compiled plan give
/// bounds or an error.
mod mutated {
    use super::*;
    use tisslang::isa::Instr;

    const PLAN: &str = r#"TASK "m"
DEFINE_TASK "t" { RUN "x" IF LAST_RUN.EXIT_CODE == 0 { STEP "in t" { LOG "y" } } }
SETUP { RUN "init" }
STEP "a" {
    IF LAST_RUN.EXIT_CODE == 0 OR LAST_RUN.STDOUT CONTAINS "x" { CALL "t" } ELSE { RUN "b" }
    TRY { STEP "inner" { RUN "c" ASSERT LAST_RUN.EXIT_CODE == 0 MESSAGE "e ${LAST_RUN.EXIT_CODE}" } } CATCH { CALL "t" }
    CHOOSE { OPTION "1" { PROMPT_AGENT "q" } OPTION "2" { } }
}
"#;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        #[test]
        fn no_panic(edits in prop::collection::vec((0u8..3, any::<prop::sample::Index>(), 0u32..80), 1..4)) {
            let (mut m, _) = tiss_compiler::compile("m.tiss", PLAN.as_bytes(), Default::default())
                .unwrap_or_else(|_| panic!("compiles"));
            let len = m.code.len() as u32;
            for (kind, at, value) in edits {
                match kind {
                    0 => {
                        let jumps: Vec<usize> = m.code.iter().enumerate()
                            .filter(|(_, i)| matches!(i, Instr::Jump { .. } | Instr::JumpIfFalse { .. } | Instr::JumpIfTrue { .. }))
                            .map(|(pc, _)| pc).collect();
                        let pc = jumps[at.index(jumps.len())];
                        if let Instr::Jump { target } | Instr::JumpIfFalse { target } | Instr::JumpIfTrue { target } = &mut m.code[pc] {
                            *target = value % len;
                        }
                    }
                    1 => {
                        let h = at.index(m.handlers.len());
                        match value % 3 {
                            0 => m.handlers[h].start = value % len,
                            1 => m.handlers[h].end = value % len,
                            _ => m.handlers[h].target = value % len,
                        }
                    }
                    _ => {
                        let options = &mut m.choices[0].options;
                        let o = at.index(options.len());
                        options[o].target = value % len;
                    }
                }
            }
            if tisslang::verify::verify(&m).is_ok() {
                let _ = estimate(&m, &CostModel::default());
            }
        }
    }
}
