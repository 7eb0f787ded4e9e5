//! What a typed PROMPT_AGENT (book: reference/types.md) costs the VM beyond an untyped one:
//! the same plan of 200 prompts, `... INTO t AS Triage` against `... INTO t`,
//! run through the VM with the `mock` provider answering every prompt the same
//! valid triage (a `--mock-answers` script of one pattern), as `tissvm run
//! --provider mock --mock-answers FILE` runs it; only the run is timed, the
//! compile and load are not. The typed run adds the schema put in each
//! request (derived at compile time, parsed once at load), the validation of
//! the answer and the typed value stored. Goal: ≤ 1 ms more per prompt.

/// The binaries' allocator, so this measures what they do.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tiss_compiler::KeepSource;
use tiss_vm::machine::program::Program;
use tiss_vm::machine::{Machine, Outcome};
use tiss_vm::provider::settings::ProviderSettings;
use tiss_vm::runner::os_host::{OsHost, Progress};
use tisslang::cost::Dim;

const PROMPTS: usize = 200;

/// The answer to every prompt: valid for `Triage`, text for the untyped one.
const ANSWER: &str = r#"{"severity": "high", "component": "cli", "labels": ["crash", "config", "regression"], "duplicate_of": 1234}"#;

/// A plan of `PROMPTS` triage prompts, each with the report as context,
/// typed (`AS Triage`) or not.
fn plan(typed: bool) -> String {
    let mut src = String::from(
        "#TISS_VERSION >= 1.1\nTASK \"t\"\nTYPE Triage = { severity: \"low\" | \"medium\" | \"high\", component: \
         STRING, labels: LIST OF STRING, duplicate_of?: INT }\nSTEP \"s\" {\n    VAR report = \"The CLI crashes \
         with a stack trace when the config file is empty.\"\n",
    );
    let as_type = if typed { " AS Triage" } else { "" };
    for i in 0..PROMPTS {
        src.push_str(&format!("    PROMPT_AGENT \"Triage bug report {i}.\" WITH report INTO t{as_type}\n"));
    }
    src.push_str("}\n");
    src
}

fn program(src: &str) -> Program {
    let (module, _) = tiss_compiler::compile("bench.tiss", src.as_bytes(), KeepSource::Nothing)
        .unwrap_or_else(|fe| panic!("bench plan does not compile: {:?}", fe.diagnostics));
    Program::new(module).expect("bench plan loads")
}

fn typed_prompt(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    let script = dir.path().join("answers.json");
    let answers = serde_json::json!([{"match": "", "answer": ANSWER}]);
    std::fs::write(&script, answers.to_string()).expect("write the answers");
    let settings =
        ProviderSettings { mock_answers: Some(script.to_str().unwrap().to_string()), ..Default::default() };
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).expect("workspace");
    let run = |program: &Program| {
        let workspace = tiss_host::workspace::Workspace::open(&ws).expect("workspace");
        let provider = tiss_vm::provider::build(&settings).expect("mock");
        let mut host = OsHost::new(workspace, provider, Progress::Quiet);
        host.quiet_steps = true;
        let mut machine = Machine::new(program);
        assert_eq!(machine.run(program, &mut host), Outcome::Completed);
        machine
    };

    let mut group = c.benchmark_group("typed prompt");
    group.throughput(Throughput::Elements(PROMPTS as u64));
    for (name, typed) in
        [("200 x PROMPT_AGENT INTO t (untyped)", false), ("200 x PROMPT_AGENT INTO t AS Triage", true)]
    {
        let program = program(&plan(typed));
        // Every answer validated at once: one request per prompt, no repair.
        assert_eq!(run(&program).meters[Dim::ApiCalls], PROMPTS as u64, "{name}");
        group.bench_function(name, |b| b.iter(|| run(&program)));
    }
    group.finish();
}

criterion_group!(benches, typed_prompt);
criterion_main!(benches);
