//! `tissvm estimate` as a process: text and JSON output, the cost-model and
//! history options, and exit statuses.

use std::path::Path;
use std::process::Output;

use serde_json::Value as Json;
use tisslang::cost::Dim;

fn tissvm(dir: &Path, args: &[&str]) -> Output {
    crate::common::command().args(args).current_dir(dir).env_remove("NO_COLOR").output().expect("run tissvm")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("UTF-8")
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("UTF-8")
}

const PLAN: &str = r#"TASK "Build and ship"

DEFINE_TASK "lint" {
    RUN "cargo clippy" TIMEOUT 2m
}

SETUP {
    RUN "cargo fetch"
}

STEP "Build" {
    RUN "cargo build --release"
    IF LAST_RUN.EXIT_CODE != 0 {
        PROMPT_AGENT "Why did the build fail?"
    }
    STEP "Lint" {
        CALL "lint"
    }
}

STEP "Ship" {
    TRY {
        RUN "./ship.sh" TIMEOUT 30s
    } CATCH {
        LOG "not shipped"
    }
}
"#;

fn compile(src: &str) -> tisslang::module::Module {
    match tiss_compiler::compile("plan.tiss", src.as_bytes(), Default::default()) {
        Ok((module, _)) => module,
        Err(fe) => panic!("{:#?}", fe.diagnostics),
    }
}

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("plan.tiss"), PLAN).unwrap();
    std::fs::write(dir.path().join("plan.tbc"), tisslang::container::encode(&module())).unwrap();
    dir
}

fn module() -> tisslang::module::Module {
    compile(PLAN)
}

fn json_out(dir: &Path, args: &[&str]) -> Json {
    let o = tissvm(dir, args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    serde_json::from_str(&stdout(&o)).expect("one JSON object")
}

fn bound_of(cost: &Json, dim: Dim) -> (u64, u64) {
    let c = &cost[dim.json_key()];
    (c["min"].as_u64().expect("min"), c["max"].as_u64().expect("max"))
}

#[test]
fn json_has_the_spec_shape_and_the_compilers_numbers() {
    let dir = workspace();
    let m = module();
    let j = json_out(dir.path(), &["estimate", "plan.tiss", "--output-format", "json"]);
    let keys: Vec<&str> = j.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["steps", "total", "runs"]);
    let steps = j["steps"].as_array().unwrap();
    let names: Vec<&str> = steps.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["SETUP", "Build", "Ship"], "top-level steps only");
    for (step, info) in steps.iter().zip(m.steps.iter().filter(|s| s.depth == 0)) {
        let keys: Vec<&str> = step.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["name", "line", "cost"]);
        assert_eq!(step["line"].as_u64(), Some(u64::from(info.line)));
        let dims: Vec<&str> = step["cost"].as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(dims, ["api_calls", "token_count", "execution_time_ms", "run_count", "instructions"]);
        for dim in Dim::ALL {
            assert_eq!(bound_of(&step["cost"], dim), info.bound.get(dim), "{dim:?}");
        }
    }
    for dim in Dim::ALL {
        assert_eq!(bound_of(&j["total"], dim), m.bound.get(dim), "{dim:?}");
    }
    let runs = j["runs"].as_array().unwrap();
    let described: Vec<(u64, &str, &str)> = runs
        .iter()
        .map(|r| (r["line"].as_u64().unwrap(), r["command"].as_str().unwrap(), r["source"].as_str().unwrap()))
        .collect();
    assert_eq!(
        described,
        [
            (4, "cargo clippy", "timeout"),
            (8, "cargo fetch", "default"),
            (12, "cargo build --release", "default"),
            (23, "./ship.sh", "timeout"),
        ]
    );
    assert_eq!(runs[0]["step"], Json::Null, "a task's RUN is in no step of its own");
    assert_eq!(runs[2]["step"], "Build");
    assert_eq!(runs[3]["execution_time_ms"], serde_json::json!({"min": 0, "max": 30000}));
    assert_eq!(runs[3]["timeout_ms"], 30000);

    // The same from the bytecode.
    let from_tbc = json_out(dir.path(), &["estimate", "plan.tbc", "--output-format", "json"]);
    assert_eq!(from_tbc, j);
}

#[test]
fn text_is_a_table_per_step_with_the_runs() {
    let dir = workspace();
    let o = tissvm(dir.path(), &["estimate", "plan.tiss"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
    let out = stdout(&o);
    // Worked by hand: Build = STEP_ENTER, PUSH, RUN (3), the IF test (5), the
    // prompt (2, "Why did the build fail?": 6 + 16 + 1000 for LAST_RUN), the
    // Lint step (STEP_ENTER, CALL + 4, STEP_EXIT), STEP_EXIT; Ship's handler
    // starts with 1..5 instructions and adds 2.
    let expected = "\
Estimate for \"Build and ship\" (no command is run)

step    line  api_calls  token_count  execution_time  run_count  instructions
SETUP      7          0            0          0s–10m          1             4
Build     11        0–1       0–2046          0s–12m          2         16–18
  Lint    16          0            0           0s–2m          1             7
Ship      21          0            0          0s–30s        0–1           4–8
total               0–1       0–2046      0s–22m 30s        3–4         25–31

task (per CALL)  line  api_calls  token_count  execution_time  run_count  instructions
\"lint\"              3          0            0           0s–2m          1             4

RUN execution time, and where each estimate comes from:
  line  4  cargo clippy           0s–2m   TIMEOUT 2m
  line  8  cargo fetch            0s–10m  built-in default (no TIMEOUT)
  line 12  cargo build --release  0s–10m  built-in default (no TIMEOUT)
  line 23  ./ship.sh              0s–30s  TIMEOUT 30s
";
    assert_eq!(out, expected);
}

#[test]
fn cost_model_and_history_change_execution_time() {
    let dir = workspace();
    std::fs::write(
        dir.path().join("costs.toml"),
        "[default]\nmax = \"1m\"\n\n[[command]]\npattern = \"cargo build *\"\nmin = \"20s\"\nmax = \"2m\"\n",
    )
    .unwrap();
    let log =
        serde_json::json!({"event": "run", "op": "cargo fetch", "outcome": "exit 0", "duration_ms": 1500});
    std::fs::write(dir.path().join("run.log"), format!("{log}\n")).unwrap();
    let j = json_out(
        dir.path(),
        &[
            "estimate",
            "plan.tiss",
            "--output-format",
            "json",
            "--cost-model",
            "costs.toml",
            "--history",
            "run.log",
        ],
    );
    let sources: Vec<&str> =
        j["runs"].as_array().unwrap().iter().map(|r| r["source"].as_str().unwrap()).collect();
    assert_eq!(sources, ["timeout", "history", "cost_model", "timeout"]);
    assert_eq!(j["runs"][1]["history_runs"], 1);
    assert_eq!(j["runs"][2]["pattern"], "cargo build *");
    // SETUP: history 1.5s; Build: 20s..2m + the task's 0..2m; Ship: 0..30s.
    assert_eq!(bound_of(&j["steps"][0]["cost"], Dim::ExecutionTime), (1_500, 1_500));
    assert_eq!(bound_of(&j["steps"][1]["cost"], Dim::ExecutionTime), (20_000, 240_000));
    assert_eq!(bound_of(&j["total"], Dim::ExecutionTime), (21_500, 271_500));

    let o =
        tissvm(dir.path(), &["estimate", "plan.tiss", "--cost-model", "costs.toml", "--history", "run.log"]);
    let out = stdout(&o);
    assert!(out.contains("\n  line  8  cargo fetch            1.5s    history (1 run)\n"), "{out}");
    assert!(
        out.contains("\n  line 12  cargo build --release  20s–2m  cost model rule 1 `cargo build *`\n"),
        "{out}"
    );
    assert!(out.contains("\ntotal               0–1       0–2046    21.5s–4m 31s"), "{out}");
}

/// History recorded by a real `tissvm run --log-file`.
#[test]
fn history_from_a_real_run_log() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("p.tiss"), "TASK \"t\"\nSTEP \"s\" {\n    RUN \"sleep 0.2\"\n}\n")
        .unwrap();
    let o = tissvm(dir.path(), &["run", "p.tiss", "--log-file", "run.log"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let j = json_out(dir.path(), &["estimate", "p.tiss", "--output-format", "json", "--history", "run.log"]);
    let run = &j["runs"][0];
    assert_eq!(run["source"], "history");
    let min = run["execution_time_ms"]["min"].as_u64().unwrap();
    assert!((200..5_000).contains(&min), "{min}");
    assert_eq!(bound_of(&j["total"], Dim::ExecutionTime), (min, min));
}

#[test]
fn invalid_inputs_exit_2() {
    let dir = workspace();
    let p = dir.path();
    std::fs::write(p.join("bad.tiss"), "TASK \"t\"\nStep \"a\" { }\n").unwrap();
    std::fs::write(p.join("bad.toml"), "[[command]]\npattern = \"x\"\nmax = \"soon\"\n").unwrap();
    std::fs::write(p.join("bad.log"), "{\"event\": \"run\"\n").unwrap();
    std::fs::write(p.join("garbage.tbc"), b"not bytecode").unwrap();
    let cases: [(&[&str], &str); 7] = [
        (&["estimate", "missing.tiss"], "cannot read `missing.tiss`"),
        (&["estimate", "bad.tiss"], "error"),
        (&["estimate", "garbage.tbc"], "garbage.tbc"),
        (&["estimate", "plan.tiss", "--cost-model", "bad.toml"], "`soon` is not a duration"),
        (&["estimate", "plan.tiss", "--cost-model", "missing.toml"], "cannot read `missing.toml`"),
        (&["estimate", "plan.tiss", "--history", "bad.log"], "--history `bad.log`: line 1"),
        (&["estimate", "plan.tiss", "--output-format", "xml"], "xml"),
    ];
    for (args, message) in cases {
        let o = tissvm(p, args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(message), "{args:?}: {}", stderr(&o));
        assert_eq!(stdout(&o), "", "{args:?}");
    }
}

/// Bytecode with a loop (the compiler never emits one) is refused by the
/// verifier, before any estimate: status 2.
#[test]
fn a_plan_with_a_loop_exits_2() {
    let dir = tempfile::tempdir().expect("temp dir");
    let src = "TASK \"t\"\nSTEP \"s\" {\n    VAR b = TRUE\n    IF b { LOG \"x\" }\n}\n";
    let mut m = compile(src);
    for instr in &mut m.code {
        if let tisslang::isa::Instr::JumpIfFalse { target } = instr {
            *target = 0;
        }
    }
    std::fs::write(dir.path().join("loop.tbc"), tisslang::container::encode(&m)).unwrap();
    let o = tissvm(dir.path(), &["estimate", "loop.tbc"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("goes backwards"), "{}", stderr(&o));
}

#[test]
fn help_describes_the_options() {
    let o = tissvm(Path::new("."), &["estimate", "--help"]);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    for option in ["--output-format", "--cost-model", "--history", "PLAN"] {
        assert!(out.contains(option), "{out}");
    }
}

/// A prompt's answer allowance is the provider's `max_tokens`, taken as a
/// run takes it: `--max-tokens`, else `TISS_MAX_TOKENS`, else `./tiss.toml`,
/// else 1,024. The plan has one prompt, so each allowance moves the
/// token maximum by its difference from 1,024; the minimum never moves.
#[test]
fn the_answer_allowance_is_the_runs_max_tokens() {
    let dir = workspace();
    let tokens = |args: &[&str], env: Option<&str>| {
        let mut command = crate::common::command();
        command
            .arg("estimate")
            .arg("plan.tiss")
            .args(["--output-format", "json"])
            .args(args)
            .current_dir(dir.path());
        if let Some(n) = env {
            command.env("TISS_MAX_TOKENS", n);
        }
        let o = command.output().expect("run tissvm");
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let json: Json = serde_json::from_str(&stdout(&o)).expect("one JSON object");
        bound_of(&json["total"], Dim::TokenCount)
    };
    let (min, max) = tokens(&[], None);
    assert_eq!(tokens(&["--max-tokens", "50"], None), (min, max - 1024 + 50));
    assert_eq!(tokens(&[], Some("100")), (min, max - 1024 + 100));
    assert_eq!(tokens(&["--max-tokens", "50"], Some("100")), (min, max - 1024 + 50), "the flag wins");
    std::fs::write(dir.path().join("tiss.toml"), "[provider]\nmax_tokens = 10\n").unwrap();
    assert_eq!(tokens(&[], None), (min, max - 1024 + 10));
    let bad = tissvm(dir.path(), &["estimate", "plan.tiss", "--max-tokens", "many"]);
    assert_eq!(bad.status.code(), Some(2), "{}", stderr(&bad));
    assert!(stderr(&bad).contains("max-tokens"), "{}", stderr(&bad));
}
