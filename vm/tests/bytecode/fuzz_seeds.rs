//! The fuzz targets' committed seed corpus (`fuzz/seeds/`, book: testing.md), made from the example plans and the harmless plan of the
//! re-sealed-input tests: `front_end/` their sources, `bytecode/` their
//! `.tbc` files, `snapshot/` snapshots of their runs on the scripted host
//! (every state a run suspends in at a PAUSE, REQUEST_REVIEW or CHOOSE, and
//! two states in the middle of the run). Seeds the loaders refuse would
//! leave a fuzz target stuck at the container (after a format or snapshot
//! version bump, say): every seed, committed or made now, must be accepted.
//!
//! `TISS_WRITE_FUZZ_SEEDS=1 cargo test -p tiss-vm --test bytecode fuzz_seeds`
//! replaces the committed seeds with new ones first.

use std::path::{Path, PathBuf};

use crate::resealed::{example_plans, host, snapshot_of, tbc_of};
use tiss_vm::host::{Answer, Question};
use tiss_vm::machine::program::Program;
use tiss_vm::machine::{Machine, Outcome, Suspension};

const TARGETS: [&str; 3] = ["front_end", "bytecode", "snapshot"];

fn seeds_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/seeds")
}

/// States of a run of `program` to snapshot: each interaction it suspends
/// at (answered, in turn, continue / approve / the second option), and the
/// states a third and two thirds of the way through its instructions.
fn states(program: &Program) -> Vec<Machine> {
    let mut machine = Machine::new(program);
    let mut host = host();
    let mut every = Vec::new();
    let mut waiting = Vec::new();
    for _ in 0..40 {
        let outcome = machine.run_until(program, &mut host, |m| {
            every.push(m.clone());
            false
        });
        let Outcome::Suspended(Suspension::Interaction { question, .. }) = outcome else { break };
        waiting.push(machine.clone());
        host.answers.push_back(match question {
            Question::Pause { .. } => Answer::Continue,
            Question::Review { .. } | Question::Approval { .. } => {
                Answer::Review { approved: true, comment: String::new() }
            }
            Question::Choose { .. } => Answer::Choice(1),
        });
    }
    let n = every.len();
    waiting.extend([every[n / 3].clone(), every[2 * n / 3].clone()]);
    waiting
}

/// Every seed, as (target, file name, bytes).
fn seeds() -> Vec<(&'static str, String, Vec<u8>)> {
    let mut seeds = Vec::new();
    for (name, src) in example_plans() {
        let bytecode = tbc_of(&name, &src);
        let program = Program::new(tisslang::container::load(&bytecode).unwrap()).unwrap();
        for (k, state) in states(&program).iter().enumerate() {
            seeds.push(("snapshot", format!("{name}-{k}"), snapshot_of(state, &bytecode, &program)));
        }
        seeds.push(("front_end", format!("{name}.tiss"), src.into_bytes()));
        seeds.push(("bytecode", name, bytecode));
    }
    seeds
}

/// Why the target would stop `bytes` before its interesting part, if it would.
fn refusal(target: &str, bytes: &[u8]) -> Option<String> {
    match target {
        "front_end" => {
            let frontend = tiss_compiler::frontend("seed.tiss", bytes);
            frontend.has_errors().then(|| format!("{} diagnostics", frontend.diagnostics.len()))
        }
        "bytecode" => tisslang::container::load(bytes).err().map(|e| e.to_string()),
        _ => tiss_vm::session::snapshot::read_snapshot(bytes).err().map(|e| e.to_string()),
    }
}

fn write_seeds(seeds: &[(&str, String, Vec<u8>)]) {
    for target in TARGETS {
        let dir = seeds_dir().join(target);
        if dir.exists() {
            std::fs::remove_dir_all(&dir).unwrap();
        }
        std::fs::create_dir_all(&dir).unwrap();
    }
    for (target, name, bytes) in seeds {
        std::fs::write(seeds_dir().join(target).join(name), bytes).unwrap();
    }
}

#[test]
fn every_fuzz_seed_is_accepted() {
    let made = seeds();
    for (target, name, bytes) in &made {
        assert_eq!(refusal(target, bytes), None, "the new seed {target}/{name} is refused");
    }
    if std::env::var_os("TISS_WRITE_FUZZ_SEEDS").is_some() {
        write_seeds(&made);
    }
    // A seed that is accepted but no longer what the examples make (the
    // compiler's output changed) starts the fuzzer from yesterday's code.
    for (target, name, bytes) in &made {
        let path = seeds_dir().join(target).join(name);
        let committed = std::fs::read(&path).unwrap_or_default();
        assert!(
            &committed == bytes,
            "the committed seed {} is stale: make the seeds again with \
             `TISS_WRITE_FUZZ_SEEDS=1 cargo test -p tiss-vm --test bytecode fuzz_seeds`",
            path.display()
        );
    }
    for target in TARGETS {
        let dir = seeds_dir().join(target);
        let mut count = 0;
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            let refused = refusal(target, &std::fs::read(&path).unwrap());
            assert_eq!(
                refused,
                None,
                "the committed seed {} is refused: make the seeds again with \
                 `TISS_WRITE_FUZZ_SEEDS=1 cargo test -p tiss-vm --test bytecode fuzz_seeds`",
                path.display()
            );
            count += 1;
        }
        assert!(count >= 9, "{}: only {count} seeds", dir.display());
    }
}

/// The `journal` target's seeds (`fuzz/seeds/journal/`) are journals
/// `tissvm run --journal` wrote: a run its policy stopped, one a cap
/// stopped, a suspended and resumed run with allowances of its own, and one
/// of every effect. Runs are not reproducible byte for byte (clock
/// readings), so they are not made again here; each must still replay
/// (`tissvm replay`: not refused, exit 2), or the fuzzer would start at the
/// reader's refusals. Made again as book: testing.md describes.
#[test]
fn every_journal_seed_replays() {
    let dir = seeds_dir().join("journal");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        let cwd = tempfile::tempdir().unwrap();
        let out = crate::common::tissvm(cwd.path(), &["replay", path.to_str().unwrap()], &[]);
        let code = out.code.unwrap_or(-1);
        assert!(
            code != 2 && (0..=5).contains(&code),
            "the seed {} does not replay: {}",
            path.display(),
            out.stderr
        );
        count += 1;
    }
    assert!(count >= 4, "{}: only {count} seeds", dir.display());
}
