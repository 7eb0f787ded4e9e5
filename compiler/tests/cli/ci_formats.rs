//! `tissc check|lint --output-format github|sarif` through the real binary:
//! GitHub's workflow commands read as its runner reads them (escaping,
//! positions, the caps counted in the step summary, the summary only where
//! the runner names a file), and the SARIF log held to the official 2.1.0
//! schema (`tests/fixtures/sarif-schema-2.1.0.json`, from
//! github.com/oasis-tcs/sarif-spec, `sarif-2.1/schema/`), with a certain fix.

use std::path::Path;

use serde_json::Value;
use tiss_test_support::tissc;

fn run(dir: &Path, args: &[&str], summary: Option<&Path>) -> (i32, String, String) {
    let mut command = tiss_test_support::command("tissc", dir, args);
    match summary {
        Some(path) => command.env("GITHUB_STEP_SUMMARY", path),
        None => command.env_remove("GITHUB_STEP_SUMMARY"),
    };
    let out = command.output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap(), text(&out.stdout), text(&out.stderr))
}

/// The properties and data of a workflow command, unescaped as the runner does.
fn parse_command(line: &str) -> (String, Vec<(String, String)>, String) {
    let unescape = |t: &str| t.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%");
    let rest = line.strip_prefix("::").unwrap();
    let (head, data) = rest.split_once("::").unwrap();
    let (name, props) = head.split_once(' ').unwrap();
    let props = props
        .split(',')
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap();
            (k.to_string(), unescape(&v.replace("%3A", ":").replace("%2C", ",")))
        })
        .collect();
    (name.to_string(), props, unescape(data))
}

#[test]
fn github_annotations_sit_at_each_diagnostic_escaped_and_capped() {
    let dir = tempfile::tempdir().unwrap();
    // A name with `,` and `:`, an error on line 3 (column 3, after a
    // two-character indent) whose message quotes the source.
    let name = "a,b:c.tiss";
    std::fs::write(dir.path().join(name), "TASK \"t\"\nSTEP \"s\" {\n  asert 1 == 1\n}\n").unwrap();
    let summary = dir.path().join("summary.md");
    let (code, stdout, stderr) =
        run(dir.path(), &["check", name, "--output-format", "github"], Some(&summary));
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("E0101"), "the diagnostics stay on stderr: {stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{stdout}");
    let (level, props, message) = parse_command(lines[0]);
    assert_eq!(level, "error");
    let prop = |k: &str| props.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    assert_eq!(prop("file"), Some(name));
    assert_eq!(
        [prop("line"), prop("col"), prop("endLine"), prop("endColumn")],
        [Some("3"), Some("3"), Some("3"), Some("8")]
    );
    assert_eq!(prop("title"), Some("E0101"));
    assert!(message.contains("`asert`"), "{message}");
    let text = std::fs::read_to_string(&summary).unwrap();
    assert!(text.starts_with("### tissc check: 1 error, 0 warnings in 1 file"), "{text}");

    // Twelve plans with an error each: ten annotations, the summary counts two more.
    let many: Vec<String> = (0..12).map(|i| format!("p{i:02}.tiss")).collect();
    for plan in &many {
        std::fs::write(dir.path().join(plan), "TASK \"t\"\nSTEP \"s\" {\n  asert 1 == 1\n}\n").unwrap();
    }
    std::fs::remove_file(&summary).unwrap();
    let mut args = vec!["lint", "--output-format", "github"];
    args.extend(many.iter().map(String::as_str));
    let (code, stdout, _) = run(dir.path(), &args, Some(&summary));
    assert_eq!(code, 1);
    assert_eq!(stdout.lines().count(), 10, "GitHub shows 10 errors per step: {stdout}");
    let text = std::fs::read_to_string(&summary).unwrap();
    assert!(text.contains("12 errors") && text.contains("- 2 more errors not annotated"), "{text}");
    assert_eq!(text.matches("| error E0101 |").count(), 12, "every diagnostic has its row: {text}");

    // A summary file that cannot be written: said, and exit 2 (what tissc gives a file it cannot write).
    let (code, _, stderr) =
        run(dir.path(), &["lint", "p00.tiss", "--output-format", "github"], Some(dir.path()));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("cannot append the step summary") && stderr.contains("GITHUB_STEP_SUMMARY"),
        "{stderr}"
    );

    std::fs::remove_file(&summary).unwrap();
    let (_, stdout, _) = run(dir.path(), &["lint", "p00.tiss", "--output-format", "github"], None);
    assert_eq!(stdout.lines().count(), 1);
    assert!(!summary.exists(), "no summary without GITHUB_STEP_SUMMARY");
}

#[test]
fn the_sarif_log_keeps_to_the_official_schema_with_rules_regions_and_a_fix() {
    let schema: Value = serde_json::from_str(include_str!("../fixtures/sarif-schema-2.1.0.json"))
        .expect("the schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("the SARIF schema compiles");
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/dialect");
    let dir = tempfile::tempdir().unwrap();
    // A plan of the dialect corpus (an earlier spelling `tissc fix`
    // rewrites for certain), one that does not compile, and one clean.
    std::fs::copy(corpus.join("01-file-exists.tiss"), dir.path().join("dialect plan.tiss")).unwrap();
    std::fs::write(dir.path().join("bad.tiss"), "TASK \"t\"\nSTEP \"s\" {\n  asert 1 == 1\n}\n").unwrap();
    std::fs::write(dir.path().join("clean.tiss"), "TASK \"t\"\nSTEP \"s\" {\n    ASSERT TRUE\n}\n").unwrap();
    let args = ["lint", "dialect plan.tiss", "bad.tiss", "clean.tiss", "--output-format", "sarif"];
    let (code, stdout, stderr) = run(dir.path(), &args, None);
    assert_eq!(code, 1, "{stderr}");
    let log: Value = serde_json::from_str(&stdout).expect("one JSON document on stdout");
    let errors: Vec<String> =
        validator.iter_errors(&log).map(|e| format!("{e} at {}", e.instance_path())).collect();
    assert!(errors.is_empty(), "not valid SARIF 2.1.0:\n{}", errors.join("\n"));
    // The schema does judge: a region that starts at line 0 is refused.
    let mut broken = log.clone();
    broken["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0.into();
    assert!(!validator.is_valid(&broken), "the validator refuses a log the schema forbids");

    let run = &log["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    let results = run["results"].as_array().unwrap();
    assert!(rules.iter().any(|r| r["id"] == "W0001" && r["defaultConfiguration"]["level"] == "warning"));
    for result in results {
        let rule = &rules[result["ruleIndex"].as_u64().unwrap() as usize];
        assert_eq!(rule["id"], result["ruleId"], "ruleIndex points at its rule");
        let region = &result["locations"][0]["physicalLocation"]["region"];
        assert!(region["startLine"].as_u64().unwrap() >= 1 && region["startColumn"].as_u64().unwrap() >= 1);
    }
    let uris: Vec<&str> = results
        .iter()
        .map(|r| r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].as_str().unwrap())
        .collect();
    assert!(uris.contains(&"dialect%20plan.tiss") && uris.contains(&"bad.tiss"), "{uris:?}");
    let fix = results
        .iter()
        .find_map(|r| r["fixes"].as_array())
        .expect("the dialect plan's certain fix is in the log");
    let replacement = &fix[0]["artifactChanges"][0]["replacements"][0];
    assert!(replacement["insertedContent"]["text"].is_string(), "{replacement}");
    assert!(replacement["deletedRegion"]["startLine"].is_u64(), "{replacement}");
}

#[test]
fn text_stays_the_default_and_a_bad_format_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("p.tiss"), "TASK \"t\"\nSTEP \"s\" {\n    ASSERT TRUE\n}\n").unwrap();
    let out = tissc(dir.path(), &["lint", "p.tiss"]);
    assert!(out.status.success() && out.stdout.is_empty());
    let out = tissc(dir.path(), &["lint", "p.tiss", "--output-format", "junit"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("possible values: text, github, sarif"));
}
