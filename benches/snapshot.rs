//! Snapshot save and load (book: reference/snapshots.md) for a typical suspended run: 10
//! variables, a RUN whose 64 KiB of output is in LAST_RUN, and 20 CALL
//! frames (each with its step open), stopped at a PAUSE. Targets: save and
//! load ≤ 100 µs each; the file ≤ 2× the state's data plus the bytecode
//! (printed before the measurements).

/// The binaries' allocator, so this measures what they do.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use tiss_compiler::KeepSource;
use tiss_vm::host::RunResult;
use tiss_vm::host::scripted::ScriptedHost;
use tiss_vm::machine::program::Program;
use tiss_vm::machine::value::Value;
use tiss_vm::machine::{Machine, Outcome};
use tiss_vm::session::snapshot::{self, SnapshotRef};
use tiss_vm::session::snapshot_key::SnapshotKey;

const DEPTH: usize = 20;
const VARIABLES: usize = 10;
const OUTPUT: usize = 64 * 1024;

/// The plan: VARs, a RUN, then CALLs 20 deep down to a PAUSE.
fn plan() -> String {
    let mut src = String::from("TASK \"Snapshot bench\"\n");
    src.push_str("DEFINE_TASK \"t0\" {\n    STEP \"s0\" {\n        PAUSE \"deep down\"\n    }\n}\n");
    for i in 1..DEPTH {
        src.push_str(&format!(
            "DEFINE_TASK \"t{i}\" {{\n    STEP \"s{i}\" {{\n        CALL \"t{}\"\n    }}\n}}\n",
            i - 1
        ));
    }
    src.push_str("STEP \"main\" {\n");
    for v in 0..VARIABLES {
        src.push_str(&format!("    VAR v{v} = \"value number {v} of the typical state\"\n"));
    }
    src.push_str("    RUN \"make test\"\n");
    src.push_str(&format!("    CALL \"t{}\"\n}}\n", DEPTH - 1));
    src
}

/// A run of the plan suspended at the PAUSE, and its bytecode.
fn suspended() -> (Program, Vec<u8>, Machine) {
    let (module, _) = tiss_compiler::compile("bench.tiss", plan().as_bytes(), KeepSource::Text)
        .unwrap_or_else(|fe| panic!("bench plan does not compile: {:?}", fe.diagnostics));
    let bytecode = tisslang::container::encode(&module);
    let program = Program::new(module).expect("loads");
    let mut host = ScriptedHost::with_runs(|req| {
        let line = "test result: ok. 12 passed; 0 failed; 0 ignored; finished in 0.01s\n";
        let stdout: String = line.repeat(OUTPUT / line.len() + 1).chars().take(OUTPUT).collect();
        Ok(RunResult {
            command: req.command.clone(),
            stdout,
            stderr: String::new(),
            exit_code: 0,
            duration_ms: 1234,
            timed_out: false,
        })
    });
    let mut machine = Machine::new(&program);
    let outcome = machine.run(&program, &mut host);
    assert!(matches!(outcome, Outcome::Suspended(_)), "{outcome:?}");
    assert_eq!(machine.frames.len(), DEPTH);
    assert_eq!(machine.slots.iter().filter(|s| s.is_some()).count(), VARIABLES);
    (program, bytecode, machine)
}

/// The state's data: every string and number it holds, raw.
fn state_data(machine: &Machine) -> usize {
    let value = |v: &Value| match v {
        Value::Str(s) | Value::Tainted(s) => s.len(),
        _ => 8,
    };
    let run = machine.last_run.as_ref().map_or(0, |r| r.command.len() + r.stdout.len() + r.stderr.len() + 17);
    let slots: usize = machine.slots.iter().flatten().map(value).sum();
    let stack: usize = machine.stack.iter().map(value).sum();
    let env: usize = machine.env.iter().map(|(k, v)| k.len() + v.len()).sum();
    let tables = machine.frames.len() * 8 + machine.steps.len() * 44 + machine.step_records.len() * 13;
    run + slots + stack + env + tables + 5 * 8 + 5 * 9 + 4 + 4
}

fn bench(c: &mut Criterion) {
    let (program, bytecode, machine) = suspended();
    let dir = tempfile::tempdir().expect("temp dir");
    let workspace = dir.path().to_path_buf();
    let options = snapshot::RememberedOptions::default();
    // Snapshots are signed with the user's key, as tissvm writes them.
    let key = SnapshotKey::from_bytes([7; 32]);
    let parts = SnapshotRef {
        machine: &machine,
        bytecode: &bytecode,
        content_hash: program.hash(),
        workspace: &workspace,
        answers: None,
        options: &options,
        resumed: None,
        key: Some(&key),
    };
    let bytes = snapshot::encode(&parts).expect("encodes");
    let back = snapshot::read_snapshot(&bytes).expect("reads back");
    assert_eq!(back.machine, machine);
    let data = state_data(&machine);
    eprintln!(
        "snapshot: {} bytes; state data {data} + bytecode {} = {} bytes; ratio {:.3}x",
        bytes.len(),
        bytecode.len(),
        data + bytecode.len(),
        bytes.len() as f64 / (data + bytecode.len()) as f64
    );

    let mut group = c.benchmark_group("snapshot");
    group.bench_function("save (encode + signature + checksum)", |b| {
        b.iter(|| snapshot::encode(&parts).expect("encodes"))
    });
    group.bench_function("load (check + decode + verify bytecode + hash)", |b| {
        b.iter(|| snapshot::read_snapshot(&bytes).expect("reads"))
    });
    group.bench_function("signature check (resume: is it this user's?)", |b| {
        b.iter(|| assert!(snapshot::signed_by(&bytes, &key)))
    });
    let path = dir.path().join("bench.snap");
    group.sample_size(20);
    group.bench_function("save to disk (encode + atomic write + fsync)", |b| {
        b.iter(|| {
            let bytes = snapshot::encode(&parts).expect("encodes");
            snapshot::write_snapshot(Path::new(&path), &bytes).expect("writes")
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
