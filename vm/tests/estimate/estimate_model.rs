//! The execution-time model of `tissvm estimate`: cost-model files, run
//! history, their order, and where each RUN's estimate comes from.

use tiss_vm::analysis::estimate::{CostModel, Estimate, TimeSource, estimate};
use tisslang::cost::Dim;
use tisslang::module::Module;

fn compile(src: &str) -> Module {
    match tiss_compiler::compile("t.tiss", src.as_bytes(), Default::default()) {
        Ok((module, _)) => module,
        Err(fe) => panic!("{:#?}", fe.diagnostics),
    }
}

fn run(m: &Module, model: &CostModel) -> Estimate {
    estimate(m, model).unwrap_or_else(|e| panic!("{e}"))
}

const PLAN: &str = r#"TASK "m"
STEP "build" {
    RUN "cargo build --release"
    RUN "cargo test --all" TIMEOUT 20s
    RUN "python3 -m pytest -q"
    RUN "./deploy.sh"
}
STEP "dynamic" {
    VAR target = "x86"
    RUN "make ${target}"
}
"#;

const MODEL: &str = r#"
# Rules are tried in order; the first match wins.
[default]
min = "1s"
max = "2m"

[[command]]
pattern = "cargo *"
min = "10s"
max = "3m"

[[command]]
regex = '^python3 -m (pytest|unittest)'
max = "1m"

[[command]]
pattern = "make ${target}"
min = "500ms"
max = "1_500ms"
"#;

fn times(e: &Estimate) -> Vec<(String, u64, u64, TimeSource)> {
    e.runs.iter().map(|r| (r.command.clone(), r.min_ms, r.max_ms, r.source.clone())).collect()
}

#[test]
fn the_default_model_is_the_compilers() {
    let m = compile(PLAN);
    let e = run(&m, &CostModel::default());
    assert_eq!(e.total, m.bound);
    let sources: Vec<TimeSource> = e.runs.iter().map(|r| r.source.clone()).collect();
    use TimeSource::*;
    assert_eq!(sources, [Default, Timeout, Default, Default, Default]);
}

#[test]
fn a_cost_model_file_sets_times_by_pattern() {
    let m = compile(PLAN);
    let model = CostModel::from_toml(MODEL).expect("valid model");
    let e = run(&m, &model);
    let rule = |index: usize, pattern: &str| TimeSource::Rule { index, pattern: pattern.to_string() };
    assert_eq!(
        times(&e),
        [
            ("cargo build --release".to_string(), 10_000, 180_000, rule(0, "cargo *")),
            // TIMEOUT wins over every rule.
            ("cargo test --all".to_string(), 0, 20_000, TimeSource::Timeout),
            ("python3 -m pytest -q".to_string(), 0, 60_000, rule(1, "^python3 -m (pytest|unittest)")),
            ("./deploy.sh".to_string(), 1_000, 120_000, TimeSource::ModelDefault),
            // A glob matches the command as written, `${...}` included.
            ("make ${target}".to_string(), 500, 1_500, rule(2, "make ${target}")),
        ]
    );
    assert_eq!(
        e.total.get(Dim::ExecutionTime),
        (10_000 + 1_000 + 500, 180_000 + 20_000 + 60_000 + 120_000 + 1_500)
    );
    // Per step too; the counts do not change.
    assert_eq!(e.steps[0].unwrap().get(Dim::ExecutionTime), (11_000, 380_000));
    assert_eq!(e.total.get(Dim::RunCount), m.bound.get(Dim::RunCount));
    assert_eq!(e.total.get(Dim::Instructions), m.bound.get(Dim::Instructions));
}

fn event(op: &str, ms: u64, outcome: &str) -> String {
    serde_json::json!({
        "ts": "2026-01-01T00:00:00.000Z", "event": "run", "step": "build", "line": 3,
        "op": op, "outcome": outcome, "duration_ms": ms, "stdout": "", "stderr": ""
    })
    .to_string()
}

#[test]
fn history_gives_the_recorded_range_and_wins_over_rules() {
    let m = compile(PLAN);
    let mut model = CostModel::from_toml(MODEL).expect("valid model");
    let log1 = [
        event("cargo build --release", 42_000, "exit 0"),
        event("cargo build --release", 40_000, "exit 0"),
        // Not the same command text: ignored.
        event("cargo build", 1, "exit 0"),
        // A command that could not start did not run.
        event("./deploy.sh", 1, "failed"),
        // Other events are ignored.
        r#"{"event":"step_end","op":"build","duration_ms":5}"#.to_string(),
        String::new(),
    ]
    .join("\n");
    let log2 = [
        event("cargo build --release", 45_500, "exit 1"),
        event("cargo test --all", 3_000, "exit 0"),
        // An interpolated command matches its template: `make ` then anything.
        event("make 'x86'", 700, "exit 0"),
        event("make 'arm64'", 900, "timed_out"),
    ]
    .join("\n");
    model.add_history(&log1).expect("log 1");
    model.add_history(&log2).expect("log 2");
    assert_eq!(model.history_commands(), 5);
    let e = run(&m, &model);
    assert_eq!(
        times(&e),
        [
            ("cargo build --release".to_string(), 40_000, 45_500, TimeSource::History { runs: 3 }),
            // TIMEOUT still wins over history.
            ("cargo test --all".to_string(), 0, 20_000, TimeSource::Timeout),
            (
                "python3 -m pytest -q".to_string(),
                0,
                60_000,
                TimeSource::Rule { index: 1, pattern: "^python3 -m (pytest|unittest)".to_string() }
            ),
            ("./deploy.sh".to_string(), 1_000, 120_000, TimeSource::ModelDefault),
            ("make ${target}".to_string(), 700, 900, TimeSource::History { runs: 2 }),
        ]
    );
}

#[test]
fn history_alone_on_top_of_the_built_in_default() {
    let m = compile("TASK \"h\"\nSTEP \"s\" { RUN \"sleep 1\" RUN \"true\" }\n");
    let mut model = CostModel::default();
    model.add_history(&event("sleep 1", 1_004, "exit 0")).expect("log");
    let e = run(&m, &model);
    assert_eq!(e.runs[0].source, TimeSource::History { runs: 1 });
    assert_eq!(e.runs[1].source, TimeSource::Default);
    assert_eq!(e.total.get(Dim::ExecutionTime), (1_004, 1_004 + 600_000));
}

#[test]
fn bad_cost_model_files_are_errors() {
    let cases = [
        ("[[command]]\npattern = \"x\"\nmax = \"5\"\n", "`5` is not a duration"),
        ("[[command]]\npattern = \"x\"\nmax = \"5s\"\nmin = \"1m\"\n", "`min` is larger than `max`"),
        ("[[command]]\nregex = \"(\"\nmax = \"5s\"\n", "not a valid regular expression"),
        ("[[command]]\npattern = \"x\"\nregex = \"x\"\nmax = \"5s\"\n", "exactly one of"),
        ("[[command]]\nmax = \"5s\"\n", "exactly one of"),
        ("[[command]]\npattern = \"x\"\n", "max"),
        ("[[command]]\npattern = \"x\"\nmax = \"5s\"\ntimeout = \"1s\"\n", "timeout"),
        ("[defaults]\nmax = \"5s\"\n", "defaults"),
        ("[[command]]\npattern = \"x\"\nmax = 5000\n", "max"),
        ("not toml at all", ""),
    ];
    for (text, expected) in cases {
        match CostModel::from_toml(text) {
            Ok(m) => panic!("accepted {text:?}: {m:?}"),
            Err(e) => assert!(e.contains(expected), "{text:?}: {e}"),
        }
    }
    assert!(CostModel::from_toml("").is_ok(), "an empty model is the default");
}

#[test]
fn bad_history_is_an_error() {
    let mut model = CostModel::default();
    let e = model.add_history(&format!("{}\nnot json\n", event("x", 1, "exit 0"))).unwrap_err();
    assert!(e.starts_with("line 2:"), "{e}");
    let e = model.add_history("[1, 2]").unwrap_err();
    assert!(e.contains("line 1: not a JSON object"), "{e}");
    let e = model.add_history(r#"{"event":"run","op":"x"}"#).unwrap_err();
    assert!(e.contains("duration_ms"), "{e}");
    let e = model.add_history(r#"{"event":"run","duration_ms":3}"#).unwrap_err();
    assert!(e.contains("`op`"), "{e}");
}
