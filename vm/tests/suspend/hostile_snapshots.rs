//! Re-sealed snapshots never reach an internal error (issue 16, defect 2;
//! book: reference/snapshots.md: a snapshot is validated, not just decoded). States taken at
//! every instruction boundary of real runs (every example, a generated plan,
//! a harmless plan) are mutated — the pc, the operand stack, CALL frames,
//! open steps, variables, LAST_RUN, the status, meters — and encoded with a
//! correct checksum, or their bytes changed and the checksum made right
//! again. Each is either refused by `read_snapshot` or resumed to a defined
//! outcome, never a trap (exit 70) or a panic; every unchanged state reads
//! back. Some go through `tissvm resume`.

use crate::resealed::{
    Rng, assert_defined_exit, assert_in_words, example_plans, harmless_plan, host, run_from, snapshot_in,
    snapshot_of, tbc_of,
};
use tiss_vm::host::RunResult;
use tiss_vm::machine::program::Program;
use tiss_vm::machine::value::{ErrorRecord, Record, Value};
use tiss_vm::machine::{Frame, LogRecord, Machine, OpenStep, Status, Suspension};
use tiss_vm::session::snapshot::{self, read_snapshot};
use tiss_vm::session::snapshot_key::KeyFile;
use tisslang::cost::bound::CostBound;
use tisslang::cost::{Dim, PerDim};

/// Every state a run of the plan passes through (at most `most`, evenly
/// spread), and the states it suspends in.
fn states(bytecode: &[u8], most: usize) -> (Program, Vec<Machine>) {
    let program = Program::new(tisslang::container::load(bytecode).unwrap()).unwrap();
    let mut machine = Machine::new(&program);
    let mut host = host();
    let mut seen = Vec::new();
    for answered in 0..40 {
        let outcome = machine.run_until(&program, &mut host, |m| {
            seen.push(m.clone());
            false
        });
        let tiss_vm::machine::Outcome::Suspended(Suspension::Interaction { question, .. }) = outcome else {
            break;
        };
        seen.push(machine.clone());
        host.answers.push_back(match question {
            tiss_vm::host::Question::Pause { .. } => tiss_vm::host::Answer::Continue,
            tiss_vm::host::Question::Review { .. } | tiss_vm::host::Question::Approval { .. } => {
                tiss_vm::host::Answer::Review { approved: true, comment: String::new() }
            }
            tiss_vm::host::Question::Choose { .. } => tiss_vm::host::Answer::Choice(answered % 2),
        });
    }
    let step = seen.len().div_ceil(most).max(1);
    (program, seen.into_iter().step_by(step).collect())
}

fn value(rng: &mut Rng) -> Value {
    match rng.below(9) {
        0 => Value::Str("v".into()),
        1 => Value::Int(-1),
        2 => Value::Duration(5),
        3 => Value::Bool(true),
        4 => Value::Record(Box::new(Record::LastRun { run: RunResult::default().into(), tainted: false })),
        5 => Value::Record(Box::new(Record::Cost(PerDim::new([0; 5])))),
        6 => Value::Record(Box::new(Record::Error(ErrorRecord {
            kind: "assertion_failed".into(),
            message: String::new(),
            step: String::new(),
            line: 1,
            tainted: false,
        }))),
        7 => Value::Record(Box::new(Record::Review { approved: false, comment: String::new() })),
        _ => Value::Record(Box::new(Record::Estimate(CostBound::ZERO))),
    }
}

/// One change to the machine state.
fn mutate(m: &mut Machine, code_len: u32, rng: &mut Rng) {
    let small = |rng: &mut Rng| rng.below(4) as u32;
    match rng.below(17) {
        0 => m.pc = rng.below(u64::from(code_len) + 2) as u32,
        1 => m.pc = m.pc.wrapping_add(if rng.below(2) == 0 { 1 } else { u32::MAX }),
        2 => {
            m.stack.pop();
        }
        3 => m.stack.push(value(rng)),
        4 => {
            if let Some(top) = m.stack.last_mut() {
                *top = value(rng);
            }
        }
        5 => {
            m.frames.pop();
        }
        6 => m
            .frames
            .push(Frame { return_pc: rng.below(u64::from(code_len) + 1) as u32, step_base: small(rng) }),
        7 => {
            if let Some(f) = m.frames.last_mut() {
                f.step_base = f.step_base.wrapping_add(1);
            }
        }
        8 => {
            m.steps.pop();
        }
        9 => m.steps.push(OpenStep { step: small(rng), meters_at_entry: PerDim::new([0; 5]) }),
        10 => {
            let n = m.slots.len() as u64;
            if n > 0 {
                let slot = &mut m.slots[rng.below(n) as usize];
                *slot = if rng.below(2) == 0 { None } else { Some(value(rng)) };
            }
        }
        11 => m.last_run = if m.last_run.is_some() { None } else { Some(RunResult::default().into()) },
        12 => {
            m.status = match rng.below(3) {
                0 => Status::Running,
                1 => Status::Suspended(Suspension::Requested),
                _ => Status::Completed,
            }
        }
        13 => m.meters[Dim::ALL[rng.below(5) as usize]] = if rng.below(2) == 0 { u64::MAX } else { 0 },
        14 => m.logs.push(LogRecord { step: small(rng), message: String::new() }),
        15 => m.asked.insert(0, ([rng.below(256) as u8; 16], small(rng))),
        _ => m.interactions = u32::MAX,
    }
}

/// Reads a snapshot and, if it is accepted, resumes it to its end.
fn check(case: &str, snap: &[u8], refused: &mut u32, resumed: &mut u32) {
    match read_snapshot(snap) {
        Err(e) => {
            assert_in_words(case, &e.to_string());
            *refused += 1;
        }
        Ok(read) => {
            let bytecode = read.bytecode.clone();
            let program = Program::new(read.module).expect("a verified module loads");
            run_from(case, &bytecode, program, read.machine);
            *resumed += 1;
        }
    }
}

/// The examples, the harmless plan and a generated plan.
fn plans() -> Vec<(String, String)> {
    let mut plans = example_plans();
    plans.push(("generated".into(), crate::plan_gen::generate(120)));
    plans
}

#[test]
fn resealed_snapshots_are_refused_or_resume_to_a_defined_outcome() {
    let mut rng = Rng::new(0x5a95_407a);
    let (mut refused, mut resumed) = (0, 0);
    for (name, src) in plans() {
        let bytecode = tbc_of(&name, &src);
        let (program, states) = states(&bytecode, 120);
        let code_len = program.module.code.len() as u32;
        for (k, state) in states.iter().enumerate() {
            // The state as the run left it reads back and resumes.
            let snap = snapshot_of(state, &bytecode, &program);
            let read = read_snapshot(&snap).unwrap_or_else(|e| panic!("{name} state {k}: refused: {e}"));
            assert_eq!(snapshot_of(&read.machine, &bytecode, &program), snap, "{name} state {k}");
            for case in 0..10 {
                // One in ten: a byte of the payload changed, the checksum made right.
                let snap = if case == 9 {
                    let mut file = snap.clone();
                    let at =
                        snapshot::HEADER_LEN + rng.below((file.len() - snapshot::HEADER_LEN) as u64) as usize;
                    file[at] ^= 1 << rng.below(8);
                    tisslang::codec::seal::seal(&mut file, snapshot::HEADER_LEN);
                    file
                } else {
                    let mut m = state.clone();
                    for _ in 0..1 + rng.below(2) {
                        mutate(&mut m, code_len, &mut rng);
                    }
                    snapshot_of(&m, &bytecode, &program)
                };
                check(&format!("{name} state {k} #{case}"), &snap, &mut refused, &mut resumed);
            }
        }
    }
    eprintln!("{refused} refused, {resumed} resumed");
    assert!(refused > 1_500 && resumed > 500, "{refused} refused, {resumed} resumed");
}

/// Some mutated snapshots of the harmless plan through the real binary,
/// signed with the tests' key and naming the fixture's workspace, as the
/// user's own snapshots are: each is resumed or refused for what its state
/// is, never for its signature or its workspace (book: reference/snapshots.md), which would
/// keep it from the state's checks.
#[test]
fn resealed_snapshots_through_tissvm_resume_never_exit_70() {
    let fixture = crate::common::Fixture::new();
    let key = KeyFile { path: crate::common::key_file() }.load_or_create().expect("the tests' key");
    let ws = fixture.ws();
    let bytecode = tbc_of("harmless", harmless_plan());
    let (program, states) = states(&bytecode, 20);
    let code_len = program.module.code.len() as u32;
    let mut rng = Rng::new(0x0070_5eed);
    let mut statuses = std::collections::BTreeMap::new();
    for (k, state) in states.iter().enumerate() {
        for case in 0..3 {
            let mut m = state.clone();
            if case > 0 {
                mutate(&mut m, code_len, &mut rng);
            }
            let path = fixture.path(&format!("state-{k}-{case}.snap"));
            std::fs::write(&path, snapshot_in(&m, &bytecode, &program, &ws, Some(&key))).unwrap();
            let run = fixture.tissvm(&[
                "resume",
                path.to_str().unwrap(),
                "--non-interactive",
                "--output-format",
                "json",
            ]);
            let code =
                assert_defined_exit(&format!("state {k} case {case}"), run.code, &run.stdout, &run.stderr);
            assert!(
                !run.stderr.contains("--workdir"),
                "state {k} case {case}: refused for its workspace or signature:\n{}",
                run.stderr
            );
            *statuses.entry(code).or_insert(0) += 1;
        }
    }
    // Refused (2) and resumed (0, 1, 3) both happen.
    assert!(statuses.contains_key(&2) && statuses.len() > 1, "{statuses:?}");
}

/// A typed answer nested a million lists deep in a re-sealed snapshot
/// (2 bytes a level): decoding it recursed until the stack overflowed, and
/// tissvm aborted. It is refused, in words, by the library and by `resume`.
#[test]
fn a_snapshot_with_an_answer_nested_past_any_stack_is_refused() {
    use tiss_vm::machine::value::Answer;
    use tisslang::answer::AnswerValue;
    let src = "#TISS_VERSION >= 1.1\nTASK \"t\"\nTYPE Nums = { xs: LIST OF INT }\nSTEP \"s\" {\n    \
               PROMPT_AGENT \"n\" INTO n AS Nums\n    PAUSE \"look\"\n    LOG \"${n.xs}\"\n}\n";
    let bytecode = tbc_of("nested", src);
    let program = Program::new(tisslang::container::load(&bytecode).unwrap()).unwrap();
    let mut machine = Machine::new(&program);
    let marker = AnswerValue::List(vec![AnswerValue::Int(0x1234_5678_9abc)]);
    let answer = Answer { shape: 0, value: marker.clone(), json: "[]".into(), tainted: false };
    machine.slots[0] = Some(Value::Answer(std::rc::Rc::new(answer)));
    let snap = snapshot_of(&machine, &bytecode, &program);
    let marker = bincode::serde::encode_to_vec(&marker, bincode::config::standard()).unwrap();
    let at = snap.windows(marker.len()).position(|w| w == marker).expect("the marker is in the snapshot");
    // [List, one item] a million times, then Int(0).
    let deep: Vec<u8> = [3u8, 1].repeat(1_000_000).into_iter().chain([1, 0]).collect();
    let mut file = [&snap[..at], &deep, &snap[at + marker.len()..]].concat();
    tisslang::codec::seal::seal(&mut file, snapshot::HEADER_LEN);
    let Err(refusal) = read_snapshot(&file) else { panic!("a tree a million levels deep was read") };
    assert!(refusal.to_string().contains("nested deeper than 128 levels"), "{refusal}");
    assert_in_words("nested", &refusal.to_string());

    let fixture = crate::common::Fixture::new();
    let path = fixture.path("nested.snap");
    std::fs::write(&path, &file).unwrap();
    let ws = fixture.ws();
    let run = fixture.tissvm(&["resume", path.to_str().unwrap(), "--workdir", ws.to_str().unwrap()]);
    run.expect(2);
    assert!(run.stderr.contains("nested deeper than 128 levels"), "{}", run.stderr);
}
