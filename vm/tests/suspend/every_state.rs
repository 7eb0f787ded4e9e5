//! The verifier's facts agree with the machine at every instruction of real
//! runs. A snapshot's state is checked against what every path brings to its
//! pc (`tisslang::verify::Facts::at`: the unit, the operand stack's types,
//! the open steps, the variables and LAST_RUN bound), which the verifier keeps
//! a record per block of code and works out for a pc inside a block from the
//! block's start. So every state a run passes through, taken as a snapshot,
//! must read back: a fact wrong at any pc a run reaches refuses a state the
//! machine really was in. The plans: every example, the harmless plan, and a
//! small plan of each shape the compile benches use (long AND/OR chains,
//! nested IFs, typed prompts), run to their ends against the scripted host.

use crate::resealed::{example_plans, snapshot_of, tbc_of};
use tiss_vm::host::scripted::ScriptedHost;
use tiss_vm::host::{Answer, Question, RunResult};
use tiss_vm::machine::program::Program;
use tiss_vm::machine::{Machine, Outcome, Suspension};
use tiss_vm::session::snapshot::read_snapshot;

/// Runs the plan to its end, taking every state before each instruction
/// (and each suspended state) through a snapshot that must read back;
/// returns how many states were read, and how the run ended.
fn every_state_reads_back(name: &str, src: &str) -> (usize, Outcome) {
    let bytecode = tbc_of(name, src);
    let program = Program::new(tisslang::container::load(&bytecode).unwrap()).unwrap();
    let mut machine = Machine::new(&program);
    // Every command succeeds, so each shape's checks pass and its run goes on.
    let mut host = ScriptedHost::with_runs(|req| {
        Ok(RunResult {
            command: req.command.clone(),
            stdout: format!("{}\n", req.command),
            ..RunResult::default()
        })
    });
    host.files.insert("out.txt".into(), "hello\n".into());
    let mut read = 0;
    let mut check = |m: &Machine| {
        let snap = snapshot_of(m, &bytecode, &program);
        if let Err(e) = read_snapshot(&snap) {
            panic!("{name}: the state at pc {} is refused: {e}", m.pc);
        }
        read += 1;
    };
    let mut answered = 0;
    loop {
        let outcome = machine.run_until(&program, &mut host, |m| {
            check(m);
            false
        });
        let Outcome::Suspended(Suspension::Interaction { question, .. }) = outcome else {
            return (read, outcome);
        };
        check(&machine);
        host.answers.push_back(match question {
            Question::Pause { .. } => Answer::Continue,
            Question::Review { .. } | Question::Approval { .. } => {
                Answer::Review { approved: answered % 3 != 0, comment: String::new() }
            }
            Question::Choose { options, .. } => Answer::Choice(answered % options.len().max(1)),
        });
        answered += 1;
    }
}

#[test]
fn every_state_of_the_examples_reads_back() {
    for (name, src) in example_plans() {
        let (read, outcome) = every_state_reads_back(&name, &src);
        assert!(read > 5, "{name}: {read} states, {outcome:?}");
    }
}

#[test]
fn every_state_of_each_shape_reads_back() {
    for shape in crate::plan_shapes::SHAPES {
        let (src, _) = crate::plan_shapes::shape(shape, 120).unwrap();
        let (read, outcome) = every_state_reads_back(shape, &src);
        eprintln!("{shape}: {read} states, {outcome:?}");
        // Each shape's run goes through all of its code.
        assert!(matches!(outcome, Outcome::Completed), "{shape}: {read} states, {outcome:?}");
    }
}
