//! Replay equivalence (book: reference/snapshots.md): stopping a run at any instruction boundary,
//! writing its snapshot, dropping the machine, reading the snapshot back and
//! continuing gives exactly the run that never stopped: the same final
//! machine state, the same effects in the same order, the same log events
//! and the same report. Checked for every example and for generated plans,
//! at EVERY boundary, against the scripted host with its answers pre-filled
//! (the clock does not tick, so time meters are equal too).

use std::path::Path;
use tisslang::cost::Dim;

use tiss_compiler::KeepSource;
use tiss_vm::host::RunResult;
use tiss_vm::host::scripted::ScriptedHost;
use tiss_vm::host::{
    Answer, AskedAt, Event, FileQuery, Host, HostError, PromptError, PromptRequest, PromptResponse, Question,
    RunRequest,
};
use tiss_vm::machine::program::Program;
use tiss_vm::machine::{Machine, Outcome};
use tiss_vm::report::RunReport;
use tiss_vm::session::snapshot::{self, SnapshotRef};

fn compile(name: &str, src: &str) -> (Vec<u8>, Program) {
    let (module, _) = tiss_compiler::compile(name, src.as_bytes(), KeepSource::Text)
        .unwrap_or_else(|fe| panic!("{name} does not compile: {:#?}\n{src}", fe.diagnostics));
    let bytes = tisslang::container::encode(&module);
    let module = tisslang::container::load(&bytes).expect("verified");
    (bytes, Program::new(module).expect("loads"))
}

/// RUN results that depend on the command only: `echo X` prints X,
/// `false` fails.
fn host(answers: &[Answer]) -> ScriptedHost {
    let mut host = ScriptedHost::with_runs(|req| {
        let stdout = req.command.strip_prefix("echo ").map(|s| format!("{s}\n")).unwrap_or_default();
        Ok(RunResult {
            command: req.command.clone(),
            stdout,
            stderr: String::new(),
            exit_code: if req.command.starts_with("false") { 1 } else { 0 },
            duration_ms: 2,
            timed_out: false,
        })
    });
    host.answers.extend(answers.iter().cloned());
    host
}

/// A host that answers every question by its kind (approving two reviews
/// in three, choosing options in turn) and records the answers, to fill the
/// scripted host's queue with answers that fit the plan.
struct Prober {
    inner: ScriptedHost,
    given: Vec<Answer>,
}

impl Host for Prober {
    fn run(&mut self, r: &RunRequest) -> Result<RunResult, HostError> {
        self.inner.run(r)
    }
    fn read(&mut self, p: &str) -> Result<String, HostError> {
        self.inner.read(p)
    }
    fn write(&mut self, p: &str, c: &str, a: bool) -> Result<(), HostError> {
        self.inner.write(p, c, a)
    }
    fn mkdir(&mut self, p: &str) -> Result<(), HostError> {
        self.inner.mkdir(p)
    }
    fn delete(&mut self, p: &str, r: bool) -> Result<(), HostError> {
        self.inner.delete(p, r)
    }
    fn file_test(&mut self, p: &str, q: FileQuery<'_>) -> Result<bool, HostError> {
        self.inner.file_test(p, q)
    }
    fn prompt(&mut self, r: &PromptRequest) -> Result<PromptResponse, PromptError> {
        self.inner.prompt(r)
    }
    fn ask(&mut self, question: &Question, _at: AskedAt<'_>) -> Option<Answer> {
        let n = self.given.len();
        let answer = match question {
            Question::Pause { .. } => Answer::Continue,
            Question::Review { .. } | Question::Approval { .. } => {
                Answer::Review { approved: n % 3 != 2, comment: format!("c{n}") }
            }
            Question::Choose { options, .. } => Answer::Choice(n % options.len()),
        };
        self.given.push(answer.clone());
        Some(answer)
    }
    fn now_ms(&mut self) -> u64 {
        self.inner.now_ms()
    }
    fn log(&mut self, e: &Event<'_>) {
        self.inner.log(e)
    }
}

/// Everything a run produced that must not depend on where it stopped.
#[derive(Debug, PartialEq)]
struct Result_ {
    machine: Machine,
    outcome: Outcome,
    effects: Vec<String>,
    events: Vec<String>,
    files: Vec<(String, String)>,
    report: serde_json::Value,
}

fn result(program: &Program, machine: Machine, outcome: Outcome, host: ScriptedHost) -> Result_ {
    let report = RunReport::new(program, &machine, &outcome, None).to_json();
    Result_ {
        machine,
        outcome,
        effects: host.effects,
        events: host.events,
        files: host.files.into_iter().collect(),
        report,
    }
}

/// Writes a snapshot of `machine`, drops it, and reads it back.
fn through_snapshot(machine: Machine, bytecode: &[u8], program: &Program) -> (Machine, Program) {
    let bytes = snapshot::encode(&SnapshotRef {
        machine: &machine,
        bytecode,
        content_hash: program.hash(),
        workspace: Path::new("/ws"),
        answers: None,
        options: &snapshot::RememberedOptions::default(),
        resumed: None,
        key: None,
    })
    .expect("encodes");
    drop(machine);
    let snap = snapshot::read_snapshot(&bytes).expect("reads back");
    assert_eq!(snap.content_hash, program.hash());
    let program = Program::new(snap.module).expect("loads");
    (snap.machine, program)
}

/// Checks one plan at every instruction boundary; returns the number of
/// boundaries checked.
fn check_plan(name: &str, src: &str) -> u64 {
    let (bytecode, program) = compile(name, src);
    // The answers that fit this plan.
    let mut prober = Prober { inner: host(&[]), given: Vec::new() };
    let mut probe = Machine::new(&program);
    let outcome = probe.run(&program, &mut prober);
    assert!(!matches!(outcome, Outcome::Trapped(_) | Outcome::Running), "{name}: {outcome:?}");
    let answers = prober.given;

    let mut straight_host = host(&answers);
    let mut straight = Machine::new(&program);
    let outcome = straight.run(&program, &mut straight_host);
    let total = straight.meters[Dim::Instructions];
    let expected = result(&program, straight, outcome, straight_host);
    assert!(total > 0, "{name}");

    // Stopped after k instructions, for every k.
    for k in 0..total {
        let mut h = host(&answers);
        let mut m = Machine::new(&program);
        let first = m.run_until(&program, &mut h, |m| m.meters[Dim::Instructions] >= k);
        assert_eq!(first, Outcome::Running, "{name}: stop at {k}");
        assert_eq!(m.meters[Dim::Instructions], k, "{name}");
        let (mut m, resumed_program) = through_snapshot(m, &bytecode, &program);
        let outcome = m.run(&resumed_program, &mut h);
        let got = result(&resumed_program, m, outcome, h);
        assert_eq!(got, expected, "{name}: stopped after {k} of {total} instructions");
    }

    // Suspended at each interaction (no answer ready), answered after the
    // snapshot was read back.
    let mut h = host(&[]);
    let mut m = Machine::new(&program);
    let mut p = compile(name, src).1;
    let mut next = answers.iter();
    let outcome = loop {
        let outcome = m.run(&p, &mut h);
        if !matches!(outcome, Outcome::Suspended(_)) {
            break outcome;
        }
        (m, p) = through_snapshot(m, &bytecode, &p);
        h.answers.push_back(next.next().expect("an answer for each interaction").clone());
    };
    assert_eq!(next.next(), None, "{name}: every answer used");
    assert_eq!(result(&p, m, outcome, h), expected, "{name}: suspended at each interaction");
    total
}

#[test]
fn every_example_resumes_identically_from_every_instruction_boundary() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut checked = 0;
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.extension().is_none_or(|e| e != "tiss") {
            continue;
        }
        let src = std::fs::read_to_string(&path).unwrap();
        checked += check_plan(&path.display().to_string(), &src);
    }
    assert!(checked > 100, "{checked} boundaries");
}

/// A small deterministic generator of valid plans that use every kind of
/// statement: nested steps, CALLs, TRY with caught failures, IF, the three
/// interactions, RUN, files, ENV, prompts, estimates and budgets.
struct Gen {
    seed: u64,
    n: u32,
    tasks: u32,
}

impl Gen {
    fn next(&mut self, below: u64) -> u64 {
        self.seed ^= self.seed << 13;
        self.seed ^= self.seed >> 7;
        self.seed ^= self.seed << 17;
        self.seed % below
    }

    fn fresh(&mut self) -> u32 {
        self.n += 1;
        self.n
    }

    fn block(&mut self, depth: u32, out: &mut String) {
        let count = 1 + self.next(4);
        for _ in 0..count {
            self.statement(depth, out);
        }
    }

    fn statement(&mut self, depth: u32, out: &mut String) {
        let i = self.fresh();
        let pad = "    ".repeat(depth as usize + 1);
        let nested = depth < 3;
        let choice = self.next(if nested { 18 } else { 12 });
        let text = match choice {
            0 => format!("VAR s{i} = \"text {i}\"\n{pad}ASSERT s{i} == \"text {i}\""),
            1 => format!("RUN \"echo {i}\"\n{pad}ASSERT LAST_RUN.STDOUT CONTAINS \"{i}\""),
            2 => format!(
                "WRITE \"f{i}.txt\" FROM \"d{i}\"\n{pad}READ \"f{i}.txt\" AS r{i}\n{pad}ASSERT r{i} == \"d{i}\""
            ),
            3 => format!("APPEND \"log.txt\" FROM \"line {i}\"\n{pad}LOG \"appended {i}\""),
            4 => format!("ENV E{i} = \"v{i}\""),
            5 => format!("PAUSE \"pause {i}\""),
            6 => format!(
                "REQUEST_REVIEW \"review {i}\" INTO rv{i}\n{pad}LOG \"approved: ${{rv{i}.APPROVED}}\""
            ),
            7 => format!(
                "TRY {{ REQUEST_REVIEW \"strict {i}\" }} CATCH AS e{i} {{ LOG \"rejected: ${{e{i}.MESSAGE}}\" }}"
            ),
            8 => format!("PROMPT_AGENT \"question {i}\" INTO a{i}\n{pad}ASSERT a{i} CONTAINS \"{i}\""),
            9 => format!("ESTIMATE_COST INTO est{i} {{ RUN \"echo x\" }}\n{pad}ASSERT est{i}.RUN_COUNT == 1"),
            10 => format!("MKDIR \"d{i}\"\n{pad}WRITE \"d{i}/x\" FROM \"x\"\n{pad}DELETE \"d{i}\" RECURSIVE"),
            11 if self.tasks > 0 => format!("CALL \"task{}\"", self.next(u64::from(self.tasks))),
            11 => format!("ASSERT COST.RUN_COUNT >= 0 MESSAGE \"never {i}\""),
            12 => {
                let mut body = String::new();
                self.block(depth + 1, &mut body);
                format!("STEP \"nested {i}\" {{\n{body}{pad}}}")
            }
            13 | 14 => {
                let (mut a, mut b) = (String::new(), String::new());
                self.block(depth + 1, &mut a);
                self.block(depth + 1, &mut b);
                format!("IF FILE \"log.txt\" EXISTS {{\n{a}{pad}}} ELSE {{\n{b}{pad}}}")
            }
            15 => {
                let (mut a, mut b) = (String::new(), String::new());
                self.block(depth + 1, &mut a);
                self.block(depth + 1, &mut b);
                format!(
                    "CHOOSE \"choice {i}\" {{\n{pad}OPTION \"a\" {{\n{a}{pad}}}\n{pad}OPTION \"b\" {{\n{b}{pad}}}\n{pad}}}"
                )
            }
            _ => {
                let mut body = String::new();
                self.block(depth + 1, &mut body);
                format!(
                    "TRY {{\n{body}{pad}    RUN \"false\"\n{pad}    ASSERT LAST_RUN.EXIT_CODE == 0 MESSAGE \"boom {i}\"\n{pad}}} CATCH AS c{i} {{\n{pad}    LOG \"caught ${{c{i}.KIND}} at ${{c{i}.LINE}}\"\n{pad}}}"
                )
            }
        };
        out.push_str(&pad);
        out.push_str(&text);
        out.push('\n');
    }

    fn plan(seed: u64) -> String {
        let mut g = Gen { seed: seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1, n: 0, tasks: 0 };
        let mut out = format!("TASK \"generated {seed}\"\nSET_BUDGET RUN_COUNT = 1000\n");
        for t in 0..g.next(3) {
            let mut body = String::new();
            g.block(1, &mut body);
            out.push_str(&format!("DEFINE_TASK \"task{t}\" {{\n{body}}}\n"));
            g.tasks += 1;
        }
        for s in 0..2 + g.next(3) {
            let mut body = String::new();
            g.block(0, &mut body);
            out.push_str(&format!("STEP \"step {s}\" {{\n{body}}}\n"));
        }
        if seed % 4 == 3 {
            // Some plans end in an uncaught failure.
            out.push_str("STEP \"last\" {\n    ASSERT FILE \"missing.txt\" EXISTS MESSAGE \"the end\"\n}\n");
        }
        out
    }
}

#[test]
fn generated_plans_resume_identically_from_every_instruction_boundary() {
    let mut checked = 0;
    for seed in 0..24 {
        let src = Gen::plan(seed);
        checked += check_plan(&format!("generated-{seed}.tiss"), &src);
    }
    assert!(checked > 1000, "{checked} boundaries");
}
