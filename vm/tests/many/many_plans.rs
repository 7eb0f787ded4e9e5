//! `tissvm run PLAN|DIR... -j N`, `--shard`, `--report-dir` and `tissvm
//! collect` (book: guide/many-plans.md), through the real binary: each plan in a
//! child `tissvm run` of its own, real RUN commands, real signals.

use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::common::{Run, command};
use serde_json::Value as Json;

/// `tissvm ARGS` in `cwd`, whose temporary workspaces (kept when a plan
/// does not pass) go to `cwd/tmp`, removed with the fixture.
fn tissvm(cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let tmp = cwd.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let tmp = tmp.to_str().unwrap().to_string();
    let mut env = env.to_vec();
    env.push(("TMPDIR", &tmp));
    crate::common::tissvm(cwd, args, &env)
}

/// A plan of one step running `command`, asserting it exits 0.
fn plan(task: &str, command: &str) -> String {
    format!(
        "TASK \"{task}\"\n\nSTEP \"only\" {{\n    RUN \"{command}\"\n    ASSERT LAST_RUN.EXIT_CODE == 0\n}}\n"
    )
}

/// A directory `suite/` of plans (`path` → source), and the fixture's root.
fn suite(plans: &[(&str, String)]) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    for (path, source) in plans {
        let path = root.path().join("suite").join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, source).unwrap();
    }
    root
}

fn lines_starting(run: &Run, word: &str) -> Vec<String> {
    run.stdout.lines().filter(|l| l.starts_with(word)).map(str::to_owned).collect()
}

#[test]
fn a_directory_runs_every_plan_below_it_with_a_line_each_and_the_worst_status() {
    let root = suite(&[
        ("a.tiss", plan("a", "echo a > out.txt")),
        ("deep/b.tiss", plan("b", "false")),
        ("deep/c.tiss", plan("c", "true")),
        ("notes.txt", "not a plan".into()),
    ]);
    let run = tissvm(root.path(), &["run", "suite", "-j", "2", "--workdir", "ws"], &[]);
    run.expect(1);
    assert_eq!(lines_starting(&run, "PASS").len(), 2, "{}", run.stdout);
    let fail = lines_starting(&run, "FAIL");
    assert_eq!(fail.len(), 1, "{}", run.stdout);
    assert!(fail[0].ends_with("suite/deep/b.tiss"), "{}", fail[0]);
    // The failure's report, after the plan lines; the counts last.
    assert!(run.stdout.contains("── FAIL suite/deep/b.tiss ──"), "{}", run.stdout);
    assert!(run.stdout.contains("LAST_RUN.EXIT_CODE = 1"), "{}", run.stdout);
    let last = run.stdout.lines().last().unwrap();
    assert!(
        last.starts_with("2 passed, 1 failed, 0 suspended, 0 budget_exceeded, 0 security_violation in "),
        "{last}"
    );
    // Each plan in its own workspace, WORKDIR/<plan path>/.
    assert_eq!(std::fs::read_to_string(root.path().join("ws/suite/a.tiss/out.txt")).unwrap(), "a\n");
    assert!(root.path().join("ws/suite/deep/b.tiss").is_dir());
}

#[test]
fn one_plan_runs_as_it_always_has() {
    let root = suite(&[("a.tiss", plan("a", "true"))]);
    let run = tissvm(root.path(), &["run", "suite/a.tiss", "--workdir", "."], &[]);
    run.expect(0);
    // Step lines and the plan's summary, not plan lines.
    assert!(run.stdout.contains("passed: a"), "{}", run.stdout);
    assert!(lines_starting(&run, "PASS").is_empty(), "{}", run.stdout);
}

#[test]
fn the_exit_status_is_the_worst_of_the_plans() {
    let budget =
        "TASK \"b\"\n\nSET_BUDGET RUN_COUNT = 1\n\nSTEP \"s\" {\n    RUN \"true\"\n    RUN \"true\"\n}\n";
    let root = suite(&[
        ("1.tiss", plan("p", "true")),
        ("2.tiss", plan("f", "false")),
        ("3.tiss", budget.to_string()),
    ]);
    let run = tissvm(root.path(), &["run", "suite", "-j", "3", "--output-format", "json"], &[]);
    run.expect(4);
    let json = run.json();
    assert_eq!(json["status"], "budget_exceeded");
    assert_eq!(json["exit_code"], 4);
    assert_eq!(json["summary"]["passed"], 1);
    assert_eq!(json["summary"]["failed"], 1);
    assert_eq!(json["summary"]["budget_exceeded"], 1);
    // The plans' reports in the order of the list, whatever order they ended in.
    let plans: Vec<&str> =
        json["plans"].as_array().unwrap().iter().map(|p| p["plan"].as_str().unwrap()).collect();
    assert_eq!(plans, ["suite/1.tiss", "suite/2.tiss", "suite/3.tiss"]);
    assert_eq!(json["plans"][1]["failure"]["kind"], "assertion_failed");
    // Plan lines are progress, on stderr: stdout is the JSON alone.
    assert!(run.stderr.contains("BUDGET"), "{}", run.stderr);
}

#[test]
fn a_temporary_workspace_is_kept_only_when_the_plan_does_not_pass() {
    let root = suite(&[
        ("good.tiss", plan("good", "pwd > where.txt")),
        ("bad.tiss", plan("bad", "pwd > where.txt; false")),
    ]);
    let run = tissvm(root.path(), &["run", "suite", "-j", "2", "--output-format", "json"], &[]);
    run.expect(1);
    let kept = run
        .stderr
        .lines()
        .find_map(|l| l.split("(workspace kept: ").nth(1))
        .map(|rest| PathBuf::from(rest.trim_end_matches(')')))
        .unwrap_or_else(|| panic!("no kept workspace named:\n{}", run.stderr));
    assert!(kept.join("where.txt").is_file(), "{}", kept.display());
    assert!(kept.file_name().unwrap().to_string_lossy().starts_with("tiss-bad-"));
    assert!(kept.starts_with(root.path().join("tmp")), "{}", kept.display());
    // In the shared temporary directory, only its owner may enter it.
    let mode = std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&kept).unwrap().permissions());
    assert_eq!(mode & 0o777, 0o700, "{}", kept.display());
    assert_eq!(run.stderr.matches("workspace kept").count(), 1, "{}", run.stderr);
    std::fs::remove_dir_all(kept).unwrap();
}

#[test]
fn fail_fast_starts_no_plan_after_a_failure() {
    let root = suite(&[
        ("1.tiss", plan("one", "false")),
        ("2.tiss", plan("two", "touch ../two-ran")),
        ("3.tiss", plan("three", "touch ../three-ran")),
    ]);
    let run = tissvm(root.path(), &["run", "suite", "-j", "1", "--fail-fast", "--workdir", "ws"], &[]);
    run.expect(1);
    // The flag given is the one named.
    assert!(
        run.stdout.contains("2 plan(s) not started: --fail-fast stopped at the first failure"),
        "{}",
        run.stdout
    );
    assert!(!root.path().join("ws/suite/two-ran").exists());
    // Workspaces are made ahead of their plans; those of plans not started are removed.
    assert!(!root.path().join("ws/suite/2.tiss").exists() && !root.path().join("ws/suite/3.tiss").exists());
    let run =
        tissvm(root.path(), &["run", "suite", "-j", "1", "--max-failures", "1", "--workdir", "ws1"], &[]);
    run.expect(1);
    assert!(run.stdout.contains("2 plan(s) not started: --max-failures 1 was reached"), "{}", run.stdout);
    let run =
        tissvm(root.path(), &["run", "suite", "-j", "1", "--max-failures", "2", "--workdir", "ws2"], &[]);
    run.expect(1);
    assert!(run.stdout.contains("2 passed, 1 failed"), "{}", run.stdout);
    assert!(root.path().join("ws2/suite/two-ran").exists());
}

/// `--report-dir` keeps a plan's snapshots in `<plan path>.snapshots/`,
/// which holds its checkpoint while it runs: a plan that ends without a
/// snapshot leaves no such directory behind, empty.
#[test]
fn report_dir_keeps_a_snapshots_directory_only_for_a_plan_that_has_one() {
    let pause = "TASK \"p\"\n\nSTEP \"ask\" {\n    PAUSE \"go on?\"\n}\n".to_string();
    let root = suite(&[
        ("pass.tiss", plan("pass", "true")),
        ("fail.tiss", plan("fail", "false")),
        ("pause.tiss", pause),
    ]);
    let run =
        tissvm(root.path(), &["run", "suite", "-j", "1", "--workdir", "ws", "--report-dir", "reports"], &[]);
    run.expect(1);
    let reports = root.path().join("reports/suite");
    for plan in ["pass", "fail", "pause"] {
        assert!(reports.join(format!("{plan}.tiss.json")).is_file(), "{plan}: no report");
    }
    for plan in ["pass", "fail"] {
        let dir = reports.join(format!("{plan}.tiss.snapshots"));
        assert!(!dir.exists(), "{} is left behind", dir.display());
    }
    let kept: Vec<_> = std::fs::read_dir(reports.join("pause.tiss.snapshots")).unwrap().collect();
    assert_eq!(kept.len(), 1, "the suspended plan's snapshot: {kept:?}");
}

#[test]
fn shards_split_the_list_the_same_way_every_time_and_cover_it_once() {
    let names: Vec<String> = (0..7).map(|i| format!("p{i}.tiss")).collect();
    let plans: Vec<(&str, String)> = names.iter().map(|n| (n.as_str(), plan("p", "true"))).collect();
    let root = suite(&plans);
    let shard = |k: usize| {
        let run = tissvm(
            root.path(),
            &["run", "suite", "--shard", &format!("{k}/3"), "--output-format", "json"],
            &[],
        );
        run.expect(0);
        run.json()["plans"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["plan"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    let slices: Vec<Vec<String>> = (1..=3).map(shard).collect();
    assert_eq!(slices[0], ["suite/p0.tiss", "suite/p3.tiss", "suite/p6.tiss"]);
    assert_eq!(shard(2), slices[1]);
    let mut all: Vec<String> = slices.concat();
    all.sort();
    assert_eq!(all, names.iter().map(|n| format!("suite/{n}")).collect::<Vec<_>>());
    let bad = tissvm(root.path(), &["run", "suite", "--shard", "4/3"], &[]);
    bad.expect(2);
    assert!(bad.stderr.contains("write K/N with 1 ≤ K ≤ N"), "{}", bad.stderr);
}

#[test]
fn report_dir_and_collect_merge_the_shards_into_one_report() {
    let root = suite(&[
        ("a.tiss", plan("a", "true")),
        ("b.tiss", plan("b", "false")),
        ("c/d.tiss", plan("d", "true")),
    ]);
    for k in 1..=2 {
        let shard = format!("{k}/2");
        tissvm(root.path(), &["run", "suite", "--shard", &shard, "--report-dir", "reports"], &[]);
    }
    assert!(root.path().join("reports/suite/c/d.tiss.json").is_file());
    let text = tissvm(root.path(), &["collect", "reports"], &[]);
    text.expect(1);
    assert!(text.stdout.contains("FAIL"), "{}", text.stdout);
    assert!(text.stdout.contains("assertion_failed"), "{}", text.stdout);
    assert!(
        text.stdout.lines().last().unwrap().starts_with("2 passed, 1 failed, 0 suspended"),
        "{}",
        text.stdout
    );

    let json = tissvm(root.path(), &["collect", "reports", "--output-format", "json"], &[]);
    let json = json.expect(1).json();
    let keys: Vec<&String> = json.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["status", "exit_code", "summary", "plans"]);
    assert_eq!(json["summary"]["total"], 3);

    let junit = tissvm(root.path(), &["collect", "reports", "--output-format", "junit"], &[]);
    junit.expect(1);
    assert_eq!(junit.stdout.matches("<testsuite ").count(), 3, "{}", junit.stdout);
    assert!(junit.stdout.contains("name=\"suite/b.tiss\""), "{}", junit.stdout);
    assert!(junit.stdout.contains("type=\"assertion_failed\""), "{}", junit.stdout);

    let empty = tissvm(root.path(), &["collect", "suite"], &[]);
    empty.expect(2);
    assert!(empty.stderr.contains("holds no report"), "{}", empty.stderr);
}

/// Waits until `path` exists (a plan got that far), or panics after 20 s.
fn wait_for(path: &Path) {
    let start = Instant::now();
    while !path.exists() {
        assert!(start.elapsed() < Duration::from_secs(20), "{} never appeared", path.display());
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn finish(child: Child) -> Run {
    let out = child.wait_with_output().unwrap();
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into(),
        stderr: String::from_utf8_lossy(&out.stderr).into(),
    }
}

/// Ctrl-C, SIGUSR1 and SIGTERM to the run of many plans suspend every plan
/// running; the one command it prints goes on from their snapshots, and no
/// effect runs twice.
#[test]
fn a_signal_suspends_every_running_plan_and_one_command_resumes_them_all() {
    for signal in [libc::SIGINT, libc::SIGUSR1, libc::SIGTERM] {
        let slow = |name: &str| {
            format!(
                "TASK \"{name}\"\n\nSTEP \"first\" {{\n    RUN \"echo once >> count.txt\"\n}}\n\nSTEP \"wait\" {{\n    \
                 RUN \"touch waiting; until [ -e go ]; do sleep 0.05; done\" TIMEOUT 60s\n}}\n\nSTEP \"last\" {{\n    RUN \
                 \"echo last >> count.txt\"\n}}\n"
            )
        };
        let root = suite(&[("x.tiss", slow("x")), ("y.tiss", slow("y")), ("z.tiss", plan("z", "true"))]);
        let child = crate::common::start(
            root.path(),
            &["run", "suite", "-j", "2", "--workdir", "ws", "--report-dir", "reports"],
        );
        // Past the first step: its file shows while its RUN may still be
        // in flight, and a RUN SIGTERM kills runs again on resume (it
        // failed so once in CI: `once` twice).
        wait_for(&root.path().join("ws/suite/x.tiss/waiting"));
        wait_for(&root.path().join("ws/suite/y.tiss/waiting"));
        // SAFETY: a signal to our own child.
        unsafe { libc::kill(child.id() as i32, signal) };
        // Only now may the waiting RUNs end (SIGINT and SIGUSR1 let them
        // finish; SIGTERM kills them and they run again on resume): neither
        // plan can have gone past its step before the signal, however
        // slowly the other started (with `sleep 2` one once did, under load).
        // (Its TIMEOUT bounds the wait should the file land elsewhere: no hang.)
        for plan in ["x", "y"] {
            std::fs::write(root.path().join(format!("ws/suite/{plan}.tiss/go")), "").unwrap();
        }
        let run = finish(child);
        run.expect(3);
        assert_eq!(lines_starting(&run, "SUSP").len(), 2, "signal {signal}:\n{}\n{}", run.stdout, run.stderr);
        assert!(run.stdout.contains("1 plan(s) not started: the run was interrupted"), "{}", run.stdout);
        let resume = run
            .stdout
            .lines()
            .skip_while(|l| !l.contains("to resume the suspended plans"))
            .nth(1)
            .unwrap_or_else(|| panic!("no resume command:\n{}", run.stdout))
            .trim()
            .to_string();
        assert!(resume.ends_with("--continue-from-reports"), "{resume}");
        for plan in ["x", "y"] {
            let report: Json = serde_json::from_slice(
                &std::fs::read(root.path().join(format!("reports/suite/{plan}.tiss.json"))).unwrap(),
            )
            .unwrap();
            assert_eq!(report["status"], "suspended");
            assert!(
                report["snapshot"]
                    .as_str()
                    .unwrap()
                    .contains(&format!("reports/suite/{plan}.tiss.snapshots/"))
            );
        }

        let words: Vec<&str> = resume.split_whitespace().skip(1).collect();
        let again = tissvm(root.path(), &words, &[]);
        again.expect(0);
        assert!(again.stdout.starts_with("PASS"), "{}", again.stdout);
        for plan in ["x", "y"] {
            let count =
                std::fs::read_to_string(root.path().join(format!("ws/suite/{plan}.tiss/count.txt"))).unwrap();
            assert_eq!(
                count, "once\nlast\n",
                "signal {signal}, plan {plan}: an effect ran twice or not at all"
            );
        }
        assert!(root.path().join("reports/suite/z.tiss.json").is_file());
    }
}

#[test]
fn many_plans_run_at_once() {
    let plans: Vec<(String, String)> = (0..4).map(|i| (format!("{i}.tiss"), plan("s", "sleep 2"))).collect();
    let plans: Vec<(&str, String)> = plans.iter().map(|(n, s)| (n.as_str(), s.clone())).collect();
    let root = suite(&plans);
    let start = Instant::now();
    tissvm(root.path(), &["run", "suite", "-j", "4"], &[]).expect(0);
    // One after another they would take 8 s; at once 2 s and the start-up
    // of four tissvm, which on a loaded machine can take seconds.
    assert!(start.elapsed() < Duration::from_secs(6), "{:?}", start.elapsed());
}

#[test]
fn options_reach_every_plan_and_log_file_names_a_directory() {
    let two_runs = "TASK \"c\"\n\nSTEP \"s\" {\n    RUN \"echo c\"\n    RUN \"echo c\"\n}\n";
    let root = suite(&[("a.tiss", plan("a", "echo a")), ("b/c.tiss", two_runs.to_string())]);
    let run = tissvm(
        root.path(),
        &["run", "suite", "--budget", "RUN_COUNT=1", "--log-file", "logs", "--output-format", "json"],
        &[],
    );
    // The budget was passed on: one RUN per plan.
    run.expect(4);
    assert_eq!(run.json()["summary"]["passed"], 1);
    assert_eq!(run.json()["summary"]["budget_exceeded"], 1);
    let log = std::fs::read_to_string(root.path().join("logs/suite/a.tiss.jsonl")).unwrap();
    let events: Vec<Json> = log.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(events.iter().any(|e| e["op"].as_str().is_some_and(|op| op.contains("echo a"))), "{log}");
    assert!(root.path().join("logs/suite/b/c.tiss.jsonl").is_file());
}

#[test]
fn report_writes_the_combined_report_to_a_file_in_any_machine_format() {
    let root = suite(&[("a.tiss", plan("a", "true")), ("b.tiss", plan("b", "false"))]);
    let run = tissvm(
        root.path(),
        &["run", "suite", "--output-format", "html", "--report", "page.html", "--report-dir", "reports"],
        &[],
    );
    run.expect(1);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    let page = std::fs::read_to_string(root.path().join("page.html")).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>") || page.starts_with("<!doctype html>"), "{}", &page[..80]);
    assert!(page.contains("suite/a.tiss") && page.contains("suite/b.tiss"), "{page}");

    let collected =
        tissvm(root.path(), &["collect", "reports", "--output-format", "json", "--report", "all.json"], &[]);
    collected.expect(1);
    assert!(collected.stdout.is_empty(), "{}", collected.stdout);
    let json: Json = serde_json::from_slice(&std::fs::read(root.path().join("all.json")).unwrap()).unwrap();
    assert_eq!(json["summary"]["total"], 2);
    let page = tissvm(root.path(), &["collect", "reports", "--output-format", "html"], &[]);
    page.expect(1);
    assert!(page.stdout.contains("suite/b.tiss"), "{}", page.stdout);

    let text = tissvm(root.path(), &["collect", "reports", "--report", "x.txt"], &[]);
    text.expect(2);
    assert!(text.stderr.contains("add --output-format html"), "{}", text.stderr);
}

/// `--record` with many plans names a directory: each plan records into a
/// cassette of its own (never two plans into one file), which replays that
/// plan alone.
#[test]
fn record_with_many_plans_gives_each_plan_its_own_cassette() {
    let asking = |task: &str| {
        format!(
            "TASK \"{task}\"\nSET_BUDGET API_CALLS = 3\n\nSTEP \"ask\" {{\n    PROMPT_AGENT \"say {task}\" INTO x\n    LOG \"${{x}}\"\n}}\n"
        )
    };
    let root = suite(&[("a.tiss", asking("a")), ("deep/b.tiss", asking("b"))]);
    let run = tissvm(
        root.path(),
        &["run", "suite", "-j", "2", "--workdir", "ws", "--provider", "mock", "--record", "cas"],
        &[],
    );
    run.expect(0);
    for (plan, query) in [("a", "say a"), ("deep/b", "say b")] {
        let cassette = root.path().join(format!("cas/suite/{plan}.tiss.cassette.json"));
        let text =
            std::fs::read_to_string(&cassette).unwrap_or_else(|e| panic!("{}: {e}", cassette.display()));
        let entries = serde_json::from_str::<Json>(&text).unwrap()["entries"].as_array().unwrap().len();
        assert_eq!(entries, 1, "{plan}: one prompt, one entry: {text}");
        assert!(text.contains(query), "{plan}: its own prompt: {text}");
        std::fs::create_dir_all(root.path().join("replay").join(plan)).unwrap();
        let replayed = tissvm(
            root.path(),
            &[
                "run",
                &format!("suite/{plan}.tiss"),
                "--workdir",
                &format!("replay/{plan}"),
                "--provider",
                "replay",
                "--cassette",
                cassette.to_str().unwrap(),
            ],
            &[],
        );
        replayed.expect(0);
    }
    // A file where the directory should be is refused before anything runs.
    std::fs::write(root.path().join("taken"), "").unwrap();
    let refused = tissvm(root.path(), &["run", "suite", "--provider", "mock", "--record", "taken"], &[]);
    refused.expect(2);
    assert!(refused.stderr.contains("--record `"), "{}", refused.stderr);
    assert!(refused.stderr.contains("a cassette per plan"), "{}", refused.stderr);
}

/// A plan that cannot start — it does not compile, or it cannot be read —
/// still gets its report in `--report-dir`, status `invalid` with what is
/// wrong, so `collect` counts and shows it like any other.
#[test]
fn a_plan_that_cannot_start_gets_a_report_that_collect_shows() {
    let root = suite(&[
        ("good.tiss", plan("good", "true")),
        ("typo.tiss", "TASK \"typo\"\n\nSTEP \"s\" {\n    LOGG \"x\"\n}\n".into()),
    ]);
    std::os::unix::fs::symlink("/nonexistent/plan.tiss", root.path().join("suite/gone.tiss")).unwrap();
    let run = tissvm(root.path(), &["run", "suite", "--report-dir", "reports", "--workdir", "ws"], &[]);
    run.expect(2);
    assert_eq!(lines_starting(&run, "ERROR").len(), 2, "{}", run.stdout);

    let typo: Json =
        serde_json::from_slice(&std::fs::read(root.path().join("reports/suite/typo.tiss.json")).unwrap())
            .unwrap();
    assert_eq!((typo["status"].as_str(), typo["exit_code"].as_u64()), (Some("invalid"), Some(2)), "{typo}");
    assert_eq!(typo["diagnostics"][0]["code"], "E0101", "{typo}");
    assert_eq!(typo["diagnostics"][0]["line"], 4, "{typo}");
    let gone: Json =
        serde_json::from_slice(&std::fs::read(root.path().join("reports/suite/gone.tiss.json")).unwrap())
            .unwrap();
    assert_eq!(gone["status"], "invalid", "{gone}");
    assert!(gone["error"].as_str().is_some_and(|e| e.contains("cannot read")), "{gone}");

    let collected = tissvm(root.path(), &["collect", "reports"], &[]);
    collected.expect(2);
    assert!(collected.stdout.contains("── ERROR suite/typo.tiss ──"), "{}", collected.stdout);
    assert!(
        collected.stdout.contains("suite/typo.tiss:4:5: error[E0101]: `LOGG` is not a statement"),
        "{}",
        collected.stdout
    );
    assert!(collected.stdout.contains("cannot read `suite/gone.tiss`"), "{}", collected.stdout);
    assert!(
        collected.stdout.lines().last().unwrap_or("").starts_with("1 passed, 2 failed"),
        "{}",
        collected.stdout
    );
    let json = tissvm(root.path(), &["collect", "reports", "--output-format", "json"], &[]);
    let statuses: Vec<String> = json.json()["plans"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["status"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(statuses.iter().filter(|s| *s == "invalid").count(), 2, "{statuses:?}");
}

/// The pids of `pid`'s children, as the kernel lists them.
fn children(pid: u32) -> Vec<i32> {
    std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
        .unwrap_or_default()
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect()
}

/// A plan to kill in its second step: a RUN and an APPEND, then a RUN that
/// sleeps the first time (after `touch started`) and ends at once when run
/// again, then a last RUN.
fn killed_plan(name: &str) -> String {
    format!(
        "TASK \"{name}\"\n\nSTEP \"first\" {{\n    RUN \"echo once >> count.txt\"\n    APPEND \"appended.txt\" \
         FROM \"once\\n\"\n}}\n\nSTEP \"wait\" {{\n    RUN \"echo try >> tries.txt; if [ -e started ]; then exit \
         0; fi; touch started; sleep 60\"\n}}\n\nSTEP \"last\" {{\n    RUN \"echo last >> count.txt\"\n}}\n"
    )
}

/// SIGKILL, as a scheduler sends when its KillWait runs out: the run of
/// many plans and each plan's `tissvm` die at once, with no chance to
/// suspend or report. `--continue-from-reports` resumes each plan from its
/// checkpoint, the state before its last effect: the effects before it do
/// not run again, the one in flight does (it finds its own marker and
/// ends at once).
#[test]
fn a_run_killed_outright_resumes_its_plans_from_their_checkpoints() {
    let root = suite(&[("x.tiss", killed_plan("x")), ("y.tiss", killed_plan("y"))]);
    let args = ["run", "suite", "-j", "2", "--workdir", "ws", "--report-dir", "reports"];
    let parent = crate::common::start(root.path(), &args);
    wait_for(&root.path().join("ws/suite/x.tiss/started"));
    wait_for(&root.path().join("ws/suite/y.tiss/started"));
    let plans = children(parent.id());
    assert_eq!(plans.len(), 2, "a tissvm per plan: {plans:?}");
    // SAFETY: SIGKILL to our own child and its children.
    unsafe { libc::kill(parent.id() as i32, libc::SIGKILL) };
    for pid in plans {
        // SAFETY: as above.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    finish(parent);
    for plan in ["x", "y"] {
        assert!(!root.path().join(format!("reports/suite/{plan}.tiss.json")).exists(), "killed: no report");
        assert!(root.path().join(format!("reports/suite/{plan}.tiss.snapshots/checkpoint.snap")).is_file());
    }

    let again = tissvm(root.path(), &[&args[..], &["--continue-from-reports"]].concat(), &[]);
    again.expect(0);
    assert_eq!(lines_starting(&again, "PASS").len(), 2, "{}\n{}", again.stdout, again.stderr);
    for plan in ["x", "y"] {
        let read = |file: &str| {
            std::fs::read_to_string(root.path().join(format!("ws/suite/{plan}.tiss/{file}"))).unwrap()
        };
        assert_eq!(read("count.txt"), "once\nlast\n", "plan {plan}: an effect before the kill ran again");
        assert_eq!(read("appended.txt"), "once\n", "plan {plan}");
        assert_eq!(read("tries.txt"), "try\ntry\n", "plan {plan}: the RUN in flight runs again, once");
        let report: Json = serde_json::from_slice(
            &std::fs::read(root.path().join(format!("reports/suite/{plan}.tiss.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(report["status"], "passed", "{report}");
        // Its checkpoints are gone, and with them their directory.
        let dir = root.path().join(format!("reports/suite/{plan}.tiss.snapshots"));
        assert!(!dir.exists(), "{:?}", tiss_test_support::listing(&dir));
    }
}

/// One plan's `tissvm` SIGKILLed while the run of many plans goes on (the
/// kernel's OOM killer picks the largest process): its report says so and
/// names the checkpoint, which is kept, and `--continue-from-reports`
/// resumes that plan from it rather than taking the report as final.
#[test]
fn a_plan_killed_alone_keeps_its_checkpoint_and_is_resumed_from_it() {
    let root = suite(&[("x.tiss", killed_plan("x"))]);
    let args = ["run", "suite", "--workdir", "ws", "--report-dir", "reports", "--output-format", "json"];
    let parent = crate::common::start(root.path(), &args);
    wait_for(&root.path().join("ws/suite/x.tiss/started"));
    let plans = children(parent.id());
    assert_eq!(plans.len(), 1, "a tissvm for the plan: {plans:?}");
    // SAFETY: SIGKILL to our own child's child.
    unsafe { libc::kill(plans[0], libc::SIGKILL) };
    let run = finish(parent);
    assert_eq!(run.code, Some(137), "the plan's status: {}", run.stderr);
    let report: Json =
        serde_json::from_slice(&std::fs::read(root.path().join("reports/suite/x.tiss.json")).unwrap())
            .unwrap();
    assert_eq!(report["status"], "error", "{report}");
    let checkpoint = root.path().join("reports/suite/x.tiss.snapshots/checkpoint.snap");
    assert!(checkpoint.is_file(), "the checkpoint is kept");
    assert_eq!(
        report["checkpoint"].as_str(),
        Some(checkpoint.canonicalize().unwrap().to_str().unwrap()),
        "{report}"
    );
    assert!(report["error"].as_str().unwrap().contains("--continue-from-reports resumes it"), "{report}");

    let again = tissvm(root.path(), &[&args[..6], &["--continue-from-reports"]].concat(), &[]);
    again.expect(0);
    let read =
        |file: &str| std::fs::read_to_string(root.path().join(format!("ws/suite/x.tiss/{file}"))).unwrap();
    assert_eq!(read("count.txt"), "once\nlast\n", "the effect before the kill did not run again");
    assert_eq!(read("appended.txt"), "once\n");
    assert_eq!(read("tries.txt"), "try\ntry\n", "the RUN in flight ran again, once");
    let report: Json =
        serde_json::from_slice(&std::fs::read(root.path().join("reports/suite/x.tiss.json")).unwrap())
            .unwrap();
    assert_eq!(report["status"], "passed", "{report}");
    let dir = root.path().join("reports/suite/x.tiss.snapshots");
    assert!(
        !dir.exists(),
        "the checkpoints and their directory are gone: {:?}",
        tiss_test_support::listing(&dir)
    );
}

/// `--checkpoint` on one plan: killed outright, it resumes with `tissvm
/// resume --force` from the checkpoint; with many plans it is refused.
#[test]
fn checkpoint_keeps_one_run_resumable_after_a_sigkill() {
    let root = suite(&[("k.tiss", plan("k", "echo once >> count.txt; touch started; sleep 60"))]);
    std::fs::create_dir_all(root.path().join("ws")).unwrap();
    let child = command()
        .args(["run", "suite/k.tiss", "--workdir", "ws", "--checkpoint", "k.snap"])
        .current_dir(root.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for(&root.path().join("ws/started"));
    // SAFETY: SIGKILL to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
    finish(child);
    let snapshot =
        tiss_vm::session::snapshot::read_snapshot(&std::fs::read(root.path().join("k.snap")).unwrap())
            .expect("a valid snapshot");
    assert_eq!(snapshot.resumed, None);
    assert_eq!(snapshot.workspace, root.path().join("ws"));

    let many = tissvm(root.path(), &["run", "suite", "--checkpoint", "x.snap"], &[]);
    many.expect(2);
    assert!(many.stderr.contains("--report-dir keeps a checkpoint for each plan"), "{}", many.stderr);
}

/// With --report-dir each plan keeps its journal there (book: cookbook/journal.md), which
/// replays to the plan's report; `--journal DIR` names another directory.
#[test]
fn each_plan_of_many_keeps_a_journal_that_replays_to_its_report() {
    let root = suite(&[("a.tiss", plan("a", "echo a")), ("sub/b.tiss", plan("b", "date +%N"))]);
    let dir = root.path();
    tissvm(dir, &["run", "suite", "--report-dir", "reports", "-j", "2"], &[]).expect(0);
    for key in ["suite/a.tiss", "suite/sub/b.tiss"] {
        let journal = dir.join("reports").join(format!("{key}.journal"));
        let replayed = tissvm(dir, &["replay", journal.to_str().unwrap(), "--output-format", "json"], &[]);
        replayed.expect(0);
        let mut report: Json = serde_json::from_str(
            &std::fs::read_to_string(dir.join("reports").join(format!("{key}.json"))).unwrap(),
        )
        .unwrap();
        let object = report.as_object_mut().unwrap();
        object.remove("plan");
        let linked = object.remove("journal").expect("the report links its journal");
        assert_eq!(linked.as_str().map(Path::new), Some(std::path::absolute(&journal).unwrap().as_path()));
        assert_eq!(replayed.json(), report, "{key}");
    }
    tissvm(dir, &["run", "suite", "--journal", "journals", "-j", "2"], &[]).expect(0);
    assert!(dir.join("journals/suite/sub/b.tiss.journal").is_file());
}
