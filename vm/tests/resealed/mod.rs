//! What the re-sealed-input tests (`hostile_bytecode.rs`,
//! `hostile_snapshots.rs`) and the fuzz targets (`fuzz/fuzz_targets/`)
//! share: a deterministic random source, the plans to mutate, and running a
//! loaded plan to its end against the scripted host — answering every
//! question, and taking every state it suspends in through a snapshot that
//! must read back — asserting that it never traps, then reporting it in
//! every format. (Re-sealing is `tisslang::codec::seal::seal`.)
#![allow(dead_code)]

use std::path::Path;

use tiss_compiler::KeepSource;
use tiss_vm::host::RunResult;
use tiss_vm::host::scripted::ScriptedHost;
use tiss_vm::host::{Answer, Question};
use tiss_vm::machine::program::Program;
use tiss_vm::machine::{Machine, Outcome, Suspension};
use tiss_vm::report::RunReport;
use tiss_vm::report::style::Style;
use tiss_vm::session::snapshot::{self, RememberedOptions, SnapshotRef};
use tiss_vm::session::snapshot_key::SnapshotKey;
use tisslang::cost::Dim;

/// xorshift64*: the same cases on every run.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Every example plan by its file stem, in order, then the harmless plan
/// (every kind of statement and interaction).
pub fn example_plans() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut plans: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "tiss"))
        .map(|p| (p.file_stem().unwrap().to_str().unwrap().to_string(), std::fs::read_to_string(&p).unwrap()))
        .collect();
    plans.sort();
    plans.push(("harmless".into(), harmless_plan().into()));
    plans
}

/// A plan using steps, a task, TRY, IF, READ, WRITE, interpolation and
/// the three interactions, whose every string is harmless as a shell
/// command: mutants that run a string as a command run nothing of note.
pub fn harmless_plan() -> &'static str {
    r#"TASK "Harmless"
DEFINE_TASK "helper" {
    RUN "true"
    ASSERT LAST_RUN.EXIT_CODE == 0
}
STEP "one" {
    VAR name = "out.txt"
    WRITE "out.txt" <<TEXT
hello
TEXT
    RUN "true" TIMEOUT 5s
    IF LAST_RUN.EXIT_CODE == 0 { LOG "ok ${name}" } ELSE { LOG "no" }
    TRY {
        ASSERT FILE "out.txt" CONTAINS "hello"
    } CATCH AS e {
        LOG "caught ${e.MESSAGE}"
    }
    CALL "helper"
    READ "out.txt" AS text
    ASSERT text CONTAINS "hello"
    PAUSE "continue"
    REQUEST_REVIEW "approve" INTO r
    CHOOSE "which" {
        OPTION "a" { LOG "a" }
        OPTION "b" { LOG "b" }
    }
}
"#
}

/// The `.tbc` of a plan.
pub fn tbc_of(name: &str, src: &str) -> Vec<u8> {
    let (module, _) = tiss_compiler::compile(name, src.as_bytes(), KeepSource::Text)
        .unwrap_or_else(|fe| panic!("{name} does not compile: {:#?}", fe.diagnostics));
    tisslang::container::encode(&module)
}

/// A `tissvm` process given a re-sealed input ended with an exit status of
/// book: reference/failures.md (0 to 5), never a panic or an internal error (70); its status.
pub fn assert_defined_exit(case: &str, code: Option<i32>, stdout: &str, stderr: &str) -> i32 {
    let code = code.unwrap_or(-1);
    assert!(
        (0..=5).contains(&code) && !stderr.contains("panicked") && !stderr.contains("internal error"),
        "{case}: exit {code}\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    code
}

/// A refusal says what is wrong in words, never in the decoder's own names.
pub fn assert_in_words(case: &str, refusal: &str) {
    for raw in
        ["LimitExceeded", "UnexpectedEnd", "UnexpectedVariant", "InvalidIntegerType", "OtherString", "Utf8 {"]
    {
        assert!(!refusal.contains(raw), "{case}: refused in the decoder's words: {refusal}");
    }
}

/// A host whose commands succeed or fail by their text, with no answers
/// queued (every question suspends the run).
pub fn host() -> ScriptedHost {
    let mut host = ScriptedHost::with_runs(|req| {
        Ok(RunResult {
            command: req.command.clone(),
            stdout: format!("{}\n", req.command),
            stderr: String::new(),
            exit_code: i64::from(req.command.len() % 3 == 0),
            duration_ms: 1,
            timed_out: false,
        })
    });
    host.files.insert("out.txt".into(), "hello\n".into());
    host
}

/// The snapshot of `machine` (`bytecode` is its plan's `.tbc`), unsigned:
/// `read_snapshot` checks a state whoever signed it.
pub fn snapshot_of(machine: &Machine, bytecode: &[u8], program: &Program) -> Vec<u8> {
    snapshot_in(machine, bytecode, program, Path::new("/ws"), None)
}

/// The snapshot of `machine` with `workspace`, signed with `key` if given.
pub fn snapshot_in(
    machine: &Machine,
    bytecode: &[u8],
    program: &Program,
    workspace: &Path,
    key: Option<&SnapshotKey>,
) -> Vec<u8> {
    snapshot::encode(&SnapshotRef {
        machine,
        bytecode,
        content_hash: program.hash(),
        workspace,
        answers: None,
        options: &RememberedOptions::default(),
        resumed: None,
        key,
    })
    .expect("a snapshot encodes")
}

/// Runs a loaded plan from `machine` to its end (at most a few dozen
/// questions, each answered after the suspended state went through a
/// snapshot, which must read back), and panics, naming `case`, if it traps.
/// Then builds the run's report as JSON, JUnit and text, as `tissvm`
/// would. Returns the outcome.
pub fn run_from(case: &str, bytecode: &[u8], program: Program, mut machine: Machine) -> Outcome {
    let mut program = program;
    let mut host = host();
    // Runs end (control only goes forward), but CALLs may repeat code: cap it.
    machine.cap(Dim::Instructions, 200_000);
    let mut answered = 0;
    loop {
        let outcome = machine.run(&program, &mut host);
        match &outcome {
            Outcome::Trapped(message) => panic!("{case}: internal error: {message}"),
            Outcome::Running => panic!("{case}: a run stopped without a reason"),
            Outcome::Suspended(Suspension::Interaction { question, .. }) if answered < 40 => {
                let snap = snapshot_of(&machine, bytecode, &program);
                let read = snapshot::read_snapshot(&snap)
                    .unwrap_or_else(|e| panic!("{case}: a state the run reached is refused: {e}"));
                program = Program::new(read.module).expect("a verified module loads");
                machine = read.machine;
                host.answers.push_back(match question {
                    Question::Pause { .. } => Answer::Continue,
                    Question::Review { .. } | Question::Approval { .. } => {
                        Answer::Review { approved: answered % 2 == 0, comment: String::new() }
                    }
                    Question::Choose { options, .. } => Answer::Choice(answered % options.len().max(1)),
                });
                answered += 1;
            }
            _ => {
                let report = RunReport::new(&program, &machine, &outcome, None);
                report.to_json();
                report.to_junit();
                report.to_text(Style::new(false));
                return outcome;
            }
        }
    }
}

/// Runs a loaded plan from its start (see [`run_from`]).
pub fn run_to_the_end(case: &str, bytecode: &[u8], program: Program) -> Outcome {
    let machine = Machine::new(&program);
    run_from(case, bytecode, program, machine)
}
