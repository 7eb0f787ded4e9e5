//! Batches that stop and go on (book: guide/many-plans.md, issue 25 items 12–16), through
//! the real binary: `--continue-from-reports` applies its own options and
//! its printed command works; a report directory with unfinished plans is
//! not run into again by accident; plans never share a report or a
//! workspace; a snapshot another resume holds is `busy`, not final; and
//! `--answers` entries go to their own plans.

use std::path::Path;

use crate::common::Run;
use serde_json::Value as Json;

/// `tissvm ARGS` in `cwd`, with no provider key and no terminal.
fn tissvm(cwd: &Path, args: &[&str]) -> Run {
    crate::common::tissvm(cwd, args, &[])
}

/// A fixture root holding `files` (path → text).
fn root(files: &[(&str, &str)]) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = root.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    root
}

fn read(root: &Path, path: &str) -> String {
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn report(root: &Path, path: &str) -> Json {
    serde_json::from_str(&read(root, path)).unwrap()
}

/// A plan that has an effect, then asks to go on, then runs `after`.
fn pausing(task: &str, after: &str) -> String {
    format!(
        "TASK \"{task}\"\n\nSTEP \"s\" {{\n    RUN \"echo before >> count.txt\"\n    PAUSE \"go on?\"\n    \
         RUN \"{after}\"\n}}\n"
    )
}

const QUIET: &str = "TASK \"q\"\n\nSTEP \"s\" {\n    RUN \"echo q >> count.txt\"\n}\n";

/// The command a run of many prints to go on, as words after `tissvm`.
fn hinted(run: &Run) -> Vec<String> {
    let text = format!("{}{}", run.stdout, run.stderr);
    let line = text
        .lines()
        .skip_while(|l| !l.contains("to resume the suspended plans"))
        .nth(1)
        .unwrap_or_else(|| panic!("no command to go on:\n{text}"));
    line.split_whitespace().skip(1).map(String::from).collect()
}

/// The answers the run of many printed as wanted, as the array it showed.
fn wanted_answers(run: &Run) -> Json {
    let text = format!("{}{}", run.stdout, run.stderr);
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.iter().position(|l| l.trim() == "[").expect("an array of answers");
    let end = start + lines[start..].iter().position(|l| l.trim() == "]").unwrap();
    serde_json::from_str(&lines[start..=end].join("\n")).unwrap()
}

/// Item 12: the continue gives the resumed plan its own --policy,
/// --sandbox-profile, --budget and --answers, under the rules of resume.
#[test]
fn a_continue_resumes_with_the_options_it_is_given() {
    let root = root(&[
        ("p.tiss", &pausing("p", "echo ran >> ran.txt")),
        (
            "two.tiss",
            "TASK \"two\"\n\nSTEP \"s\" {\n    PAUSE \"go on?\"\n    RUN \"true\"\n    RUN \"true\"\n    RUN \"true\"\n}\n",
        ),
        ("deny.toml", "[commands]\ndeny = [\"echo *\"]\n"),
        ("answers.json", r#"[{"answer": "continue"}]"#),
    ]);
    let dir = root.path();
    let first =
        ["run", "p.tiss", "two.tiss", "--report-dir", "R", "--workdir", "W", "--sandbox-profile", "none"];
    tissvm(dir, &first).expect(3);
    assert_eq!(report(dir, "R/p.tiss.json")["sandbox"]["profile"], "none");
    let again = [&first[..7], &["--continue-from-reports", "--answers", "answers.json"]].concat();
    let run = tissvm(
        dir,
        &[&again[..], &["--policy", "deny.toml", "--budget", "RUN_COUNT=2", "--sandbox-profile", "standard"]]
            .concat(),
    );
    run.expect(5);
    // The policy held: the denied command did not run.
    assert!(!dir.join("W/p.tiss/ran.txt").exists(), "a denied command ran:\n{}", run.stderr);
    let p = report(dir, "R/p.tiss.json");
    assert_eq!(p["status"], "security_violation", "{p}");
    assert_eq!(p["sandbox"]["profile"], "standard", "the profile given on the continue: {p}");
    // The budget held: two RUNs, and the third is over it.
    assert_eq!(report(dir, "R/two.tiss.json")["status"], "budget_exceeded");
    assert_eq!(read(dir, "W/p.tiss/count.txt"), "before\n", "the effect before the PAUSE ran once");
}

/// Item 12: a profile weaker than the run's is refused on a continue as on
/// resume — and the refusal leaves the plan resumable — unless
/// --raise-budget.
#[test]
fn a_weaker_profile_needs_raise_budget_and_its_refusal_is_not_final() {
    let root = root(&[
        ("p.tiss", &pausing("p", "echo ran >> ran.txt")),
        ("answers.json", r#"[{"answer": "continue"}]"#),
    ]);
    let dir = root.path();
    let base = ["run", "p.tiss", "--report-dir", "R", "--workdir", "W"];
    tissvm(dir, &base).expect(3);
    let go_on =
        [&base[..], &["--continue-from-reports", "--answers", "answers.json", "--sandbox-profile", "none"]]
            .concat();
    let refused = tissvm(dir, &go_on);
    refused.expect(2);
    assert!(refused.stdout.contains("ERROR"), "{}", refused.stdout);
    assert_eq!(report(dir, "R/p.tiss.json")["status"], "suspended", "the refusal replaced the report");
    let raised = tissvm(dir, &[&go_on[..], &["--raise-budget"]].concat());
    raised.expect(0);
    assert_eq!(report(dir, "R/p.tiss.json")["sandbox"]["profile"], "none");
    assert_eq!(read(dir, "W/p.tiss/ran.txt"), "ran\n");
    let alone = tissvm(dir, &["run", "p.tiss", "--raise-budget"]);
    alone.expect(2);
    assert!(alone.stderr.contains("--continue-from-reports"), "{}", alone.stderr);
}

/// Item 12: the command printed to go on works as printed, once the
/// answers it asks for are written: it does not suspend the plans again.
#[test]
fn the_printed_command_answers_and_finishes_the_suspended_plans() {
    let root = root(&[("p.tiss", &pausing("p", "echo ran >> ran.txt")), ("q.tiss", QUIET)]);
    let dir = root.path();
    let run = tissvm(dir, &["run", "p.tiss", "q.tiss", "--report-dir", "R", "--workdir", "W"]);
    run.expect(3);
    let wanted = wanted_answers(&run);
    assert_eq!(wanted, serde_json::json!([{"plan": "p.tiss", "line": 5, "answer": "continue"}]));
    let words = hinted(&run);
    assert!(words.ends_with(&["--answers".into(), "answers.json".into()]), "{words:?}");
    std::fs::write(dir.join("answers.json"), wanted.to_string()).unwrap();
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let again = tissvm(dir, &words);
    again.expect(0);
    assert_eq!(read(dir, "W/p.tiss/ran.txt"), "ran\n");
    assert_eq!(read(dir, "W/p.tiss/count.txt"), "before\n");
    assert_eq!(read(dir, "W/q.tiss/count.txt"), "q\n", "the passed plan did not run again");
}

/// Item 13: a report directory with a suspended plan is not run into again
/// without --continue-from-reports: refused before any effect, naming the
/// plan and both ways on; --restart starts it over.
#[test]
fn unfinished_plans_are_not_started_over_unless_told() {
    let root = root(&[("p.tiss", &pausing("p", "true")), ("q.tiss", QUIET)]);
    let dir = root.path();
    let args = ["run", "p.tiss", "q.tiss", "--report-dir", "R", "--workdir", "W"];
    tissvm(dir, &args).expect(3);
    let refused = tissvm(dir, &args);
    refused.expect(2);
    for says in ["`p.tiss` (suspended)", "--continue-from-reports", "--restart", "--report-dir `R`"] {
        assert!(refused.stderr.contains(says), "{says}: {}", refused.stderr);
    }
    assert!(!refused.stderr.contains("`q.tiss`"), "q passed: {}", refused.stderr);
    assert_eq!(read(dir, "W/p.tiss/count.txt"), "before\n", "an effect ran twice");
    assert_eq!(read(dir, "W/q.tiss/count.txt"), "q\n");
    let both = tissvm(dir, &[&args[..], &["--restart", "--continue-from-reports"]].concat());
    both.expect(2);
    let restarted = tissvm(dir, &[&args[..], &["--restart"]].concat());
    restarted.expect(3);
    assert_eq!(read(dir, "W/p.tiss/count.txt"), "before\nbefore\n", "--restart runs it from the start");
    // A plan killed with its checkpoint left is unfinished too.
    std::fs::remove_dir_all(dir.join("R")).unwrap();
    let sleeper = "TASK \"k\"\n\nSTEP \"s\" {\n    RUN \"touch started; sleep 60\"\n}\n";
    std::fs::write(dir.join("k.tiss"), sleeper).unwrap();
    let killed = ["run", "k.tiss", "--report-dir", "R", "--workdir", "W"];
    let mut parent = crate::common::start(dir, &killed);
    let start = std::time::Instant::now();
    while !dir.join("W/k.tiss/started").exists() {
        assert!(start.elapsed().as_secs() < 20, "the plan never started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let child: i32 = std::fs::read_to_string(format!("/proc/{0}/task/{0}/children", parent.id()))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // SAFETY: SIGKILL to our own child and its child.
    unsafe {
        libc::kill(parent.id() as i32, libc::SIGKILL);
        libc::kill(child, libc::SIGKILL);
    }
    parent.wait().unwrap();
    let refused = tissvm(dir, &killed);
    refused.expect(2);
    assert!(refused.stderr.contains("`k.tiss` (killed; its checkpoint is left)"), "{}", refused.stderr);
}

/// Item 14: plans that differ only in extension, `..` and `_up`, a plan
/// named twice, and a plan beside a directory of its name each get their
/// own report and workspace; the one named twice runs once.
#[test]
fn plans_never_share_a_report_or_a_workspace() {
    let who =
        |name: &str| format!("TASK \"{name}\"\n\nSTEP \"s\" {{\n    RUN \"echo {name} >> who.txt\"\n}}\n");
    let root = root(&[
        ("work/x.tiss", &who("x-tiss")),
        // Source, whatever its extension (it lacks the .tbc magic).
        ("work/x.tbc", &who("x-tbc")),
        ("z.tiss", &who("z-up")),
        ("work/_up/z.tiss", &who("z-underscore")),
        ("work/a.tiss", "TASK \"a\"\n\nSTEP \"s\" {\n    RUN \"mkdir -p b && echo a > b/note.txt\"\n}\n"),
        ("work/a/b.tiss", "TASK \"b\"\n\nSTEP \"s\" {\n    RUN \"echo b > note.txt\"\n}\n"),
    ]);
    let dir = root.path().join("work");
    let plans = ["x.tiss", "x.tbc", "../z.tiss", "_up/z.tiss", "x.tiss", "./x.tiss", "a.tiss", "a/b.tiss"];
    let run =
        tissvm(&dir, &[&["run", "-j", "1", "--report-dir", "R", "--workdir", "W"], &plans[..]].concat());
    run.expect(0);
    assert_eq!(run.stdout.lines().filter(|l| l.starts_with("PASS")).count(), 6, "{}", run.stdout);
    let collected = tissvm(&dir, &["collect", "R", "--output-format", "json"]);
    assert_eq!(collected.json()["summary"]["total"], 6, "{}", collected.stdout);
    for (workspace, name) in
        [("x.tiss", "x-tiss"), ("x.tbc", "x-tbc"), ("_up/z.tiss", "z-up"), ("__up/z.tiss", "z-underscore")]
    {
        assert_eq!(read(&dir, &format!("W/{workspace}/who.txt")), format!("{name}\n"), "{workspace}");
    }
    // Neither workspace holds the other: each plan's file is its own.
    assert_eq!(read(&dir, "W/a.tiss/b/note.txt"), "a\n");
    assert_eq!(read(&dir, "W/a/b.tiss/note.txt"), "b\n");
}

/// Item 15: a continue that finds a plan's snapshot held by another resume
/// reports it `busy` and leaves its report as it was; a later continue
/// resumes it.
#[test]
fn a_snapshot_another_resume_holds_is_busy_and_resumed_later() {
    let root = root(&[
        ("p.tiss", &pausing("p", "echo ran >> ran.txt")),
        ("answers.json", r#"[{"answer": "continue"}]"#),
    ]);
    let dir = root.path();
    let base = ["run", "p.tiss", "--report-dir", "R", "--workdir", "W"];
    tissvm(dir, &base).expect(3);
    let snapshot = report(dir, "R/p.tiss.json")["snapshot"].as_str().unwrap().to_string();
    let go_on = [&base[..], &["--continue-from-reports", "--answers", "answers.json"]].concat();
    // Held as every `tissvm resume` holds it.
    let lock = tiss_vm::session::resume_lock::ResumeLock::take(Path::new(&snapshot)).unwrap();
    let busy = tissvm(dir, &[&go_on[..], &["--output-format", "json"]].concat());
    busy.expect(3);
    let json = busy.json();
    assert_eq!(json["plans"][0]["status"], "busy", "{json}");
    assert!(
        json["plans"][0]["error"].as_str().unwrap().contains("a later --continue-from-reports"),
        "{json}"
    );
    assert!(busy.stderr.contains("BUSY"), "{}", busy.stderr);
    let kept = report(dir, "R/p.tiss.json");
    assert_eq!(
        (kept["status"].as_str(), kept["snapshot"].as_str()),
        (Some("suspended"), Some(snapshot.as_str()))
    );
    assert!(!dir.join("W/p.tiss/ran.txt").exists());
    drop(lock);
    tissvm(dir, &go_on).expect(0);
    assert_eq!(read(dir, "W/p.tiss/ran.txt"), "ran\n");
}

/// Item 16: with many plans an answers entry may name its plan; entries
/// without one go to every plan; a plan that asks nothing ignores the file;
/// a plan named that is not in the run is refused before anything runs.
#[test]
fn answers_go_to_their_own_plans() {
    let review = "TASK \"r\"\n\nSTEP \"s\" {\n    REQUEST_REVIEW \"ok?\" INTO r\n    ASSERT r.APPROVED\n}\n";
    let root = root(&[
        ("p.tiss", &pausing("p", "echo ran >> ran.txt")),
        ("q.tiss", QUIET),
        ("r.tiss", review),
        (
            "named.json",
            r#"[{"plan": "r.tiss", "answer": "approve"}, {"plan": "./p.tiss", "answer": "continue"}]"#,
        ),
        ("unnamed.json", r#"[{"answer": "continue"}]"#),
        ("stray.json", r#"[{"plan": "nowhere.tiss", "answer": "continue"}]"#),
    ]);
    let dir = root.path();
    let run =
        tissvm(dir, &["run", "p.tiss", "q.tiss", "r.tiss", "--workdir", "W", "--answers", "named.json"]);
    run.expect(0);
    assert_eq!(read(dir, "W/p.tiss/ran.txt"), "ran\n");
    assert_eq!(read(dir, "W/q.tiss/count.txt"), "q\n");
    let unnamed = tissvm(dir, &["run", "p.tiss", "q.tiss", "--workdir", "W2", "--answers", "unnamed.json"]);
    unnamed.expect(0);
    let stray = tissvm(dir, &["run", "p.tiss", "q.tiss", "--workdir", "W3", "--answers", "stray.json"]);
    stray.expect(2);
    assert!(stray.stderr.contains("stray.json entry 1: `plan` names `nowhere.tiss`"), "{}", stray.stderr);
    assert!(!dir.join("W3/q.tiss").exists(), "a plan ran");
    // One plan alone: an entry naming a plan is for many.
    let alone = tissvm(dir, &["run", "p.tiss", "--workdir", ".", "--answers", "named.json"]);
    alone.expect(2);
    assert!(alone.stderr.contains("entry 1 names the plan `r.tiss`"), "{}", alone.stderr);
}

/// Item 16 with item 12: the same answers file given again goes on where
/// each plan stood in it, counting that plan's entries.
#[test]
fn the_same_answers_file_goes_on_per_plan_across_a_continue() {
    let twice = "TASK \"t\"\n\nSTEP \"s\" {\n    PAUSE \"one?\"\n    PAUSE \"two?\"\n    RUN \"echo done >> done.txt\"\n}\n";
    let root = root(&[
        ("t.tiss", twice),
        ("q.tiss", QUIET),
        ("a.json", r#"[{"plan": "t.tiss", "answer": "continue"}]"#),
    ]);
    let dir = root.path();
    let run = tissvm(
        dir,
        &["run", "t.tiss", "q.tiss", "--report-dir", "R", "--workdir", "W", "--answers", "a.json"],
    );
    run.expect(3);
    assert!(run.stdout.contains("add to `a.json` an entry for each"), "{}", run.stdout);
    assert_eq!(wanted_answers(&run)[0]["line"], 5);
    std::fs::write(
        dir.join("a.json"),
        r#"[{"plan": "t.tiss", "answer": "continue"}, {"plan": "t.tiss", "answer": "continue", "line": 5}]"#,
    )
    .unwrap();
    let words = hinted(&run);
    let again = tissvm(dir, &words.iter().map(String::as_str).collect::<Vec<_>>());
    again.expect(0);
    assert_eq!(read(dir, "W/t.tiss/done.txt"), "done\n");
}
