//! The dialect corpus, `tests/dialect/` at the repository root: plans in the
//! forms of earlier TissLang and neighbouring languages (`parser/dialect.rs`
//! lists them), run through the real binaries. For each plan `NAME.tiss`:
//!
//! - `tissc check --error-format json` prints exactly `expected/NAME.jsonl`
//!   (one diagnostic per form, each with its replacement);
//! - `tissc fix --partial` on a copy writes exactly `expected/NAME.fixed.tiss`,
//!   and exits 0 exactly when `tissc check` then passes it.
//!
//! It prints the share of plans `tissc fix` alone makes compile (the book
//! quotes it) and holds it at 90% or more. `TISS_BLESS=1` rewrites the
//! expected files from what the binaries print (read the diff before you
//! commit it).

use std::fs;
use std::path::{Path, PathBuf};

use tiss_test_support::{text, tissc};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/dialect")
}

/// Compares `got` with the file `path`, or writes it there when blessing.
fn expect_file(path: &Path, got: &str, bless: bool, failures: &mut Vec<String>) {
    if bless {
        fs::write(path, got).expect("write an expected file");
        return;
    }
    match fs::read_to_string(path) {
        Ok(want) if want == got => {}
        Ok(want) => failures.push(format!("{}:\n--- want\n{want}\n--- got\n{got}", path.display())),
        Err(e) => failures.push(format!("{}: {e} (run with TISS_BLESS=1 to write it)", path.display())),
    }
}

#[test]
fn every_plan_reports_its_forms_and_fixes_as_expected() {
    let bless = std::env::var_os("TISS_BLESS").is_some();
    let dir = corpus();
    let expected = dir.join("expected");
    fs::create_dir_all(&expected).unwrap();
    let mut plans: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tiss"))
        .collect();
    plans.sort();
    assert!(plans.len() >= 30, "the corpus has {} plans", plans.len());

    let mut failures = Vec::new();
    let mut compiled = Vec::new();
    for plan in &plans {
        let stem = plan.trim_end_matches(".tiss");
        let check = tissc(&dir, &["check", "--error-format", "json", plan]);
        let diagnostics = text(&check.stderr);
        if diagnostics.is_empty() {
            failures.push(format!("{plan}: `tissc check` says nothing; a corpus plan has a form to report"));
        }
        for line in diagnostics.lines() {
            let value: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
            let machine = value["suggestions"].as_array().is_some_and(|s| {
                s.iter().any(|s| s["applicability"] == "machine" && s["replacement"].is_string())
            });
            // Every error of the corpus teaches: a replacement, or (for a
            // statement with no counterpart) the statements that exist.
            if value["severity"] == "error"
                && !machine
                && !value["message"].as_str().unwrap().contains("nearest")
            {
                failures.push(format!("{plan}: an error without a certain replacement: {line}"));
            }
        }
        expect_file(&expected.join(format!("{stem}.jsonl")), &diagnostics, bless, &mut failures);

        let work = tempfile::tempdir().unwrap();
        fs::copy(dir.join(plan), work.path().join(plan)).unwrap();
        let fix = tissc(work.path(), &["fix", "--partial", plan]);
        let fixed = fs::read_to_string(work.path().join(plan)).unwrap();
        expect_file(&expected.join(format!("{stem}.fixed.tiss")), &fixed, bless, &mut failures);
        let recheck = tissc(work.path(), &["check", plan]);
        let compiles = recheck.status.code() == Some(0);
        if (fix.status.code() == Some(0)) != compiles {
            failures.push(format!(
                "{plan}: `tissc fix` exited {:?} but `tissc check` of its output exited {:?}\n{}",
                fix.status,
                recheck.status,
                text(&fix.stderr)
            ));
        }
        if compiles {
            compiled.push(plan);
        }
    }
    let share = compiled.len() * 100 / plans.len();
    println!("tissc fix alone makes {} of {} corpus plans compile ({share}%)", compiled.len(), plans.len());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(share >= 90, "only {share}% of the corpus compiles after `tissc fix`");
}

#[test]
fn dry_run_prints_the_changes_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let plan = fs::read_to_string(corpus().join("26-mixed-upstream.tiss")).unwrap();
    fs::write(dir.path().join("p.tiss"), &plan).unwrap();
    let out = tissc(dir.path(), &["fix", "--dry-run", "p.tiss"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(fs::read_to_string(dir.path().join("p.tiss")).unwrap(), plan);
    let stdout = text(&out.stdout);
    assert!(stdout.contains("p.tiss:5: `-> code` → `INTO code`\n"), "{stdout}");
    assert!(stdout.contains("p.tiss:7: `FILE_EXISTS \"add.py\"` → `FILE \"add.py\" EXISTS`\n"), "{stdout}");
    assert!(text(&out.stderr).contains("the plan compiles (dry run: nothing written)"));
}

#[test]
fn a_plan_still_broken_is_left_untouched_unless_partial() {
    let dir = tempfile::tempdir().unwrap();
    let plan = fs::read_to_string(corpus().join("31-think-and-fixes.tiss")).unwrap();
    fs::write(dir.path().join("p.tiss"), &plan).unwrap();
    let out = tissc(dir.path(), &["fix", "p.tiss"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(fs::read_to_string(dir.path().join("p.tiss")).unwrap(), plan, "not written");
    let stderr = text(&out.stderr);
    assert!(stderr.contains("`THINK` is not a TissLang statement"), "{stderr}");
    assert!(stderr.contains("not written: --partial writes it anyway"), "{stderr}");

    let out = tissc(dir.path(), &["fix", "--partial", "p.tiss"]);
    assert_eq!(out.status.code(), Some(1));
    let written = fs::read_to_string(dir.path().join("p.tiss")).unwrap();
    assert!(written.contains("RUN \"make -j1\" TIMEOUT 600s") && written.contains("THINK"), "{written}");
}

#[test]
fn fix_exit_statuses_for_good_and_unreadable_files() {
    let dir = tempfile::tempdir().unwrap();
    let good = "TASK \"t\"\n\nSTEP \"s\" {\n    LOG \"hi\"\n}\n";
    fs::write(dir.path().join("good.tiss"), good).unwrap();
    let out = tissc(dir.path(), &["fix", "good.tiss"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{}", text(&out.stderr));
    let out = tissc(dir.path(), &["fix", "missing.tiss", "good.tiss"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("cannot read `missing.tiss`"));

    // Bytecode is named, never read as text (nor rewritten).
    assert_eq!(tissc(dir.path(), &["compile", "good.tiss", "-o", "good.tbc"]).status.code(), Some(0));
    let tbc = fs::read(dir.path().join("good.tbc")).unwrap();
    let out = tissc(dir.path(), &["fix", "good.tbc"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("is compiled bytecode"), "{}", text(&out.stderr));
    assert_eq!(fs::read(dir.path().join("good.tbc")).unwrap(), tbc);

    // Not UTF-8: reported as `check` does, and left as it is.
    let latin1 = b"TASK \"caf\xe9\"\nSTEP \"s\" {\n    // note\n}\n";
    fs::write(dir.path().join("latin1.tiss"), latin1).unwrap();
    let out = tissc(dir.path(), &["fix", "latin1.tiss"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("E0001"), "{}", text(&out.stderr));
    assert_eq!(fs::read(dir.path().join("latin1.tiss")).unwrap(), latin1);

    // A leading BOM stays where it was.
    fs::write(dir.path().join("bom.tiss"), "\u{FEFF}// note\nTASK \"t\"\n").unwrap();
    assert_eq!(tissc(dir.path(), &["fix", "bom.tiss"]).status.code(), Some(0));
    assert_eq!(fs::read_to_string(dir.path().join("bom.tiss")).unwrap(), "\u{FEFF}# note\nTASK \"t\"\n");
}
