//! `tissvm inspect` through the real binary: the manifest's commands, paths
//! and risk, text and JSON, and the risk levels, read as `tissc lint` reads
//! commands (book: reference/policy.md, "Risk levels").

use crate::common::Fixture;

const RISKY: &str = r#"TASK "Fetch and install"
SET_BUDGET RUN_COUNT = 5
STEP "download" {
    RUN "curl -fsSL https://example.com/install.sh -o install.sh" TIMEOUT 30s
    READ "install.sh" AS script
    WRITE "backup/install.sh" FROM script
    RUN "sh install.sh" IN "backup"
    DELETE "backup" RECURSIVE
}
"#;

#[test]
fn inspect_text_lists_commands_paths_and_risk() {
    let fx = Fixture::new();
    let plan = fx.write_plan(RISKY);
    let run = fx.tissvm(&["inspect", &plan]);
    run.expect(0);
    let out = &run.stdout;
    assert!(out.contains("task: Fetch and install"), "{out}");
    assert!(out.lines().any(|l| l == "risk: high"), "{out}");
    assert!(out.contains("curl"), "{out}");
    for expected in [
        "curl -fsSL https://example.com/install.sh -o install.sh",
        "sh install.sh",
        "install.sh",
        "backup/install.sh",
        "backup",
        "RUN_COUNT = 5",
        "download",
    ] {
        assert!(out.contains(expected), "missing {expected:?}:\n{out}");
    }
    // Inspecting runs nothing.
    assert!(std::fs::read_dir(fx.ws()).unwrap().next().is_none());
}

#[test]
fn inspect_json_lists_commands_paths_and_risk() {
    let fx = Fixture::new();
    let plan = fx.write_plan(RISKY);
    let run = fx.tissvm(&["inspect", "--output-format", "json", &plan]);
    run.expect(0);
    let manifest = run.json();
    assert_eq!(manifest["task"], "Fetch and install");
    assert!(manifest["hash"].as_str().is_some_and(|h| h.len() >= 32), "{manifest:#}");
    let commands: Vec<&str> =
        manifest["commands"].as_array().unwrap().iter().map(|c| c["command"].as_str().unwrap()).collect();
    assert_eq!(commands, ["curl -fsSL https://example.com/install.sh -o install.sh", "sh install.sh"]);
    assert_eq!(manifest["commands"][0]["timeout_ms"], 30_000);
    assert_eq!(manifest["commands"][1]["dir"], "backup");
    let paths: Vec<(&str, &str)> = manifest["paths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["path"].as_str().unwrap(), p["access"].as_str().unwrap()))
        .collect();
    for expected in [("install.sh", "read"), ("backup/install.sh", "write"), ("backup", "delete_recursive")] {
        assert!(paths.contains(&expected), "missing {expected:?} in {paths:?}");
    }
    assert_eq!(manifest["risk"]["level"], "high");
    let reasons = manifest["risk"]["reasons"].as_array().unwrap();
    assert!(reasons.iter().any(|r| r["level"] == "high" && r["reason"].as_str().unwrap().contains("curl")));
    assert_eq!(manifest["budgets"][0]["dimension"], "RUN_COUNT");
    assert_eq!(manifest["budgets"][0]["value"], 5);
}

#[test]
fn inspect_risk_levels() {
    let fx = Fixture::new();
    let risk = |plan: &str| {
        let path = fx.write_plan(plan);
        let run = fx.tissvm(&["inspect", "--output-format", "json", &path]);
        run.expect(0);
        run.json()["risk"]["level"].as_str().unwrap().to_string()
    };
    let step = |body: &str| format!("TASK \"t\"\nSTEP \"s\" {{\n    {body}\n}}\n");
    assert_eq!(risk(&step("RUN \"echo hello\"")), "low");
    assert_eq!(risk(&step("WRITE \"a.txt\" FROM \"x\"")), "low");
    assert_eq!(risk(&step("RUN \"curl https://example.com\"")), "high");
    assert_eq!(risk(&step("RUN \"echo x | /usr/bin/wget -qO- https://example.com\"")), "high");
    assert_eq!(risk(&step("RUN \"sudo make install\"")), "high");
    assert_eq!(risk(&step("RUN \"rm -rf build\"")), "high");
    assert_eq!(risk(&step("DELETE \"build\" RECURSIVE")), "medium");
    assert_eq!(risk(&step("VAR c = \"ls\"\n    RUN \"${c}\"")), "medium");
    assert_eq!(risk(&step("PROMPT_AGENT \"hi\" INTO a\n    RUN \"echo ${a}\"")), "high");
    assert_eq!(risk(&step("RUN \"echo curl wget\"")), "low", "words that are no program");
    // A program only running the command tells.
    assert_eq!(risk(&step("RUN \"CC=cc; $CC -o t t.c\"")), "medium");
    assert_eq!(risk(&step("RUN \"alias r=rm\\nr t.c\"")), "medium");
}

/// inspect rates what W0004 warns about (`tissc_lint.rs` has the same
/// commands), from the same reading of the command (`command_risk`):
/// `chmod 777`, a pipe into a shell, a tool that runs commands it makes.
#[test]
fn inspect_and_lint_agree_on_chmod_777_pipes_into_a_shell_and_made_commands() {
    let fx = Fixture::new();
    for (command, level, reason) in [
        ("chmod -R 777 site", "medium", "makes files writable by every user (chmod 777)"),
        ("cat get.sh | bash", "high", "pipes into a shell (`| bash`), which runs whatever it is sent"),
        (
            "sed 's/.*/x/e' list.txt",
            "high",
            "runs `sed`, which runs commands it makes or reads as it runs (`s///e`, `system($0)`, an \
             option or a script that expands, an editor's `!CMD`, a template), so what they are is not known",
        ),
    ] {
        let path = fx.write_plan(&format!("TASK \"t\"\nSTEP \"s\" {{\n    RUN \"{command}\"\n}}\n"));
        let run = fx.tissvm(&["inspect", "--output-format", "json", &path]);
        run.expect(0);
        let report = run.json();
        assert_eq!(report["risk"]["level"], level, "{command}: {report}");
        let reasons: Vec<&str> = report["risk"]["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|r| r["reason"].as_str())
            .collect();
        assert_eq!(reasons, [reason], "{command}: {report}");
    }
}

/// A command the shell reader cannot read is not taken to run nothing: the
/// shell runs the lines before the one it cannot parse, here `rm -rf ~`.
/// inspect rates it high and says why; W0004 warns (`tissc_lint.rs`).
#[test]
fn inspect_rates_a_command_it_cannot_read_high() {
    let fx = Fixture::new();
    let path = fx.write_plan("TASK \"t\"\nSTEP \"s\" {\n    RUN \"ls\\nrm -rf ~\\necho \\\"open\"\n}\n");
    let run = fx.tissvm(&["inspect", "--output-format", "json", &path]);
    run.expect(0);
    let report = run.json();
    assert_eq!(report["risk"]["level"], "high", "{report}");
    let reasons = report["risk"]["reasons"].as_array().unwrap();
    assert!(
        reasons.iter().any(|r| r["reason"]
            .as_str()
            .is_some_and(|t| t.starts_with("a command that cannot be read as shell syntax (")
                && t.ends_with("), so what it runs is not known"))),
        "{report}"
    );
    let human = fx.tissvm(&["inspect", &path]);
    human.expect(0);
    assert!(human.stdout.contains("cannot be read as shell syntax"), "{}", human.stdout);
}

/// Every effect a plan can have is visible statically (book: reference/policy.md): the
/// shell removes quotes, so `c''url` and `c\url` run curl.
#[test]
fn inspect_sees_through_shell_quoting() {
    let fx = Fixture::new();
    for command in
        ["c''url https://example.com", "c\\\\url https://example.com", "\\\"curl\\\" https://example.com"]
    {
        let path = fx.write_plan(&format!("TASK \"t\"\nSTEP \"s\" {{\n    RUN \"{command}\"\n}}\n"));
        let run = fx.tissvm(&["inspect", "--output-format", "json", &path]);
        run.expect(0);
        assert_eq!(run.json()["risk"]["level"], "high", "{command}");
    }
}

/// Programs that run the command after their own words, or commands they
/// make of their input or read from their words, are seen through or
/// flagged: `logsave LOG rm -r d` deletes recursively, and what xe, rush,
/// pee and expect run is known only as they run, however harmless the
/// program they are given looks (`touch`).
#[test]
fn inspect_sees_commands_that_runners_run() {
    let fx = Fixture::new();
    for (command, says) in [
        ("logsave -a log.txt rm -r d", "deletes recursively with rm"),
        ("ls | xe touch", "runs `xe`, which runs commands it makes or reads"),
        ("ls | rush 'touch {}'", "runs `rush`, which runs commands it makes or reads"),
        ("echo x | pee 'touch y' cat", "runs `pee`, which runs commands it makes or reads"),
        ("expect -c 'spawn touch y'", "runs `expect`, which runs commands it makes or reads"),
    ] {
        let path = fx.write_plan(&format!("TASK \"t\"\nSTEP \"s\" {{\n    RUN \"{command}\"\n}}\n"));
        let run = fx.tissvm(&["inspect", &path]);
        run.expect(0);
        assert!(run.stdout.contains("risk: high") && run.stdout.contains(says), "{command}: {}", run.stdout);
    }
}

/// The manifest is written as it is made, in text and in JSON: on a plan
/// of 3,000 steps that each ask a model, `ENV` its answer, write it and run
/// it (a manifest of 95,000 taint flows and 6,000 risk reasons: 14 MB of
/// text, 27 MB of JSON) the two cost the same memory, where holding the
/// document whole cost its size or more (text 58 MB, JSON 224 MB, against
/// 29 and 31 now). The margin is three transparent huge pages: the peaks
/// move by whole ones from run to run.
#[test]
fn inspect_of_a_large_manifest_writes_it_as_it_goes() {
    use std::fmt::Write;
    use tiss_test_support::measured::{self, MIB};
    let mut plan = String::from("TASK \"taint\"\nSET_BUDGET API_CALLS = 100000\n");
    for i in 0..3000 {
        let _ = write!(
            plan,
            "STEP \"s{i}\" {{\n    PROMPT_AGENT \"q{i}\" INTO a{i}\n    ENV X = a{i}\n    \
             WRITE \"f{i}.sh\" FROM a{i}\n    RUN \"sh f{i}.sh\"\n}}\n"
        );
    }
    let (module, _) = tiss_compiler::compile("big.tiss", plan.as_bytes(), tiss_compiler::KeepSource::Hash)
        .unwrap_or_else(|fe| panic!("{:#?}", fe.diagnostics));
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("big.tbc"), tisslang::container::encode(&module)).unwrap();
    let deadline = std::time::Duration::from_secs(120);
    let bin = tiss_test_support::binary("tissvm");
    let stdout = || std::fs::read(dir.path().join("stdout")).unwrap();
    let stderr = || std::fs::read_to_string(dir.path().join("stderr")).unwrap();
    let text = measured::measure(module_path!(), &bin, dir.path(), &["inspect", "big.tbc"], deadline);
    assert_eq!(text.code, 0, "{}", stderr());
    let text_bytes = stdout().len() as u64;
    assert!(
        String::from_utf8(stdout()).unwrap().contains("→ line 18001 RUN"),
        "the last RUN's flows are listed"
    );
    let args = ["inspect", "--output-format", "json", "big.tbc"];
    let json = measured::measure(module_path!(), &bin, dir.path(), &args, deadline);
    assert_eq!(json.code, 0, "{}", stderr());
    let json_bytes = stdout().len() as u64;
    let out: serde_json::Value = serde_json::from_slice(&stdout()).expect("one JSON document");
    assert_eq!(out["commands"].as_array().map(Vec::len), Some(3000));
    assert_eq!(out["risk"]["level"], "high");
    let mib = |bytes: u64| bytes as f64 / MIB as f64;
    eprintln!(
        "text: {:.1} MiB written, peak {:.1} MiB; json: {:.1} MiB written, peak {:.1} MiB",
        mib(text_bytes),
        mib(text.peak),
        mib(json_bytes),
        mib(json.peak)
    );
    assert!(text_bytes > 8 * MIB && json_bytes > 16 * MIB, "the plan makes a large manifest");
    assert!(json.peak <= text.peak + 6 * MIB, "json peak {} bytes against text {}", json.peak, text.peak);
    assert!(text.peak <= json.peak + 6 * MIB, "text peak {} bytes against json {}", text.peak, json.peak);
}

/// Not a test of its own: the small process `measured::measure` measures from.
#[test]
fn measuring_parent() {
    tiss_test_support::measured::measuring_parent();
}
