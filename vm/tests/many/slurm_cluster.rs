//! `tissvm slurm` against a real Slurm cluster on this host
//! (`tools/local-slurm`: munged, slurmctld and two slurmd from Debian's
//! packages; it needs root): a job array of shards, `--wait` and the
//! collected report; run options passed to the tasks, quoted; and a task
//! requeued in the middle of a plan, which resumes from its snapshot so
//! that no effect runs twice, or, SIGKILLed with no time to suspend, from
//! its checkpoint, so that only the effect in flight runs again; and a
//! command policy reading what srun, salloc and `sbatch --wrap` run.
//!
//! The suite never installs Slurm (`TISS_NO_INSTALL=1`; `.ci/run` does).
//! When the cluster cannot start: with `CI=true` the test fails (CI must
//! exercise a real cluster); elsewhere it skips, visibly, and returns.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::Run;
use serde_json::Value as Json;

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tools/local-slurm")
}

/// Ports apart from the tool's defaults, so a cluster someone started by
/// hand on this host is left alone.
const PORTS: [(&str, &str); 2] = [("TISS_SLURMCTLD_PORT", "26917"), ("TISS_SLURMD_PORT_BASE", "27300")];

/// The cluster, stopped when dropped (also when the test fails).
struct Cluster {
    dir: PathBuf,
    conf: PathBuf,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new("bash").arg(script()).arg("stop").arg(&self.dir).envs(PORTS).status();
    }
}

fn start(dir: &Path) -> Result<Cluster, String> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Err("local-slurm needs root (slurmd runs jobs as their user)".into());
    }
    // Never an apt-get from the test suite: .ci/run installs Slurm and Munge.
    let out = Command::new("bash")
        .env("TISS_NO_INSTALL", "1")
        .arg(script())
        .arg("start")
        .arg(dir)
        .envs(PORTS)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", script().display()))?;
    let cluster = Cluster { dir: dir.to_path_buf(), conf: dir.join("slurm.conf") };
    if !out.status.success() {
        return Err(format!(
            "{} start failed:\n{}",
            script().display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(cluster)
}

/// `tissvm ARGS` in `cwd`, talking to the cluster.
fn tissvm(cluster: &Cluster, cwd: &Path, args: &[&str]) -> Run {
    let out = crate::common::command()
        .args(args)
        .current_dir(cwd)
        .env("SLURM_CONF", &cluster.conf)
        .env_remove("NO_COLOR")
        .output()
        .expect("run tissvm");
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into(),
        stderr: String::from_utf8_lossy(&out.stderr).into(),
    }
}

fn slurm_command(cluster: &Cluster, program: &str, args: &[&str]) -> String {
    let out = Command::new(program).args(args).env("SLURM_CONF", &cluster.conf).output().expect(program);
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

/// The `tissvm` processes whose command line names `report_dir`.
fn tissvms_of(report_dir: &Path) -> Vec<i32> {
    let needle = report_dir.to_string_lossy().into_owned();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let words: Vec<String> =
                cmdline.split(|b| *b == 0).map(|w| String::from_utf8_lossy(w).into_owned()).collect();
            words.first().is_some_and(|w| w.ends_with("/tissvm")) && words.iter().any(|w| w.contains(&needle))
        })
        .collect()
}

fn report(path: &Path) -> Json {
    serde_json::from_slice(&std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        .unwrap()
}

#[test]
fn slurm_runs_shards_as_a_job_array_and_a_requeued_task_resumes_from_its_snapshot() {
    let root = tempfile::tempdir().unwrap();
    let cluster = match start(&root.path().join("cluster")) {
        Ok(cluster) => cluster,
        Err(why) => {
            tiss_test_support::skip::missing("local Slurm cluster", &why);
            return;
        }
    };
    what_slurm_runs_is_judged(&cluster, root.path());
    // The tasks get this process's environment (sbatch's default), so
    // the tests' snapshot key too (crate::common::command sets it).
    let plans = root.path().join("plans");
    std::fs::create_dir_all(plans.join("more")).unwrap();
    let step = |name: &str, command: &str| {
        format!("STEP \"{name}\" {{\n    RUN \"{command}\"\n    ASSERT LAST_RUN.EXIT_CODE == 0\n}}\n")
    };
    std::fs::write(plans.join("a.tiss"), format!("TASK \"a\"\n\n{}", step("s", "true"))).unwrap();
    std::fs::write(plans.join("more/b.tiss"), format!("TASK \"b\"\n\n{}", step("s", "false"))).unwrap();
    std::fs::write(plans.join("more/c.tiss"), format!("TASK \"c\"\n\n{}", step("s", "echo c > c.txt")))
        .unwrap();

    // Three plans in two array tasks; --wait prints the collected report.
    let run = tissvm(
        &cluster,
        root.path(),
        &["slurm", "plans", "--report-dir", "reports", "--shards", "2", "--wait"],
    );
    run.expect(1);
    assert!(run.stderr.contains("in 2 task(s)"), "{}", run.stderr);
    assert!(
        run.stdout.lines().last().unwrap_or("").starts_with("2 passed, 1 failed, 0 suspended"),
        "{}\n{}",
        run.stdout,
        run.stderr
    );
    assert_eq!(
        report(&root.path().join("reports/plans/more/b.tiss.json"))["failure"]["kind"],
        "assertion_failed"
    );
    assert!(root.path().join("reports/workspaces/plans/more/c.tiss/c.txt").is_file());
    let script = std::fs::read_to_string(root.path().join("reports/tissvm-slurm.sh")).unwrap();
    for option in ["--array=1-2", "--signal=B:USR1@60", "--requeue"] {
        assert!(script.contains(option), "{option} missing from:\n{script}");
    }
    // A report directory in use is refused: its reports would be taken as the new job's.
    let again = tissvm(&cluster, root.path(), &["slurm", "plans", "--report-dir", "reports"]);
    again.expect(2);
    assert!(again.stderr.contains("already holds reports"), "{}", again.stderr);

    // Run options reach each task's `tissvm run`, quoted: a policy file
    // whose name holds a space and a quote denies the plan's second RUN.
    std::fs::create_dir_all(root.path().join("opts")).unwrap();
    std::fs::write(
        root.path().join("opts/p.tiss"),
        format!("TASK \"p\"\n\n{}\n{}", step("s", "echo ok > ok.txt"), step("t", "echo denied")),
    )
    .unwrap();
    std::fs::write(root.path().join("it's a policy.toml"), "[commands]\ndeny = [\"echo denied*\"]\n")
        .unwrap();
    let run = tissvm(
        &cluster,
        root.path(),
        &[
            "slurm",
            "opts",
            "--report-dir",
            "opts-reports",
            "--policy",
            "it's a policy.toml",
            "--max-procs",
            "9",
            "--wait",
        ],
    );
    run.expect(5);
    let denied = report(&root.path().join("opts-reports/opts/p.tiss.json"));
    assert_eq!(denied["status"], "security_violation", "{denied}");
    assert!(root.path().join("opts-reports/workspaces/opts/p.tiss/ok.txt").is_file());
    let script = std::fs::read_to_string(root.path().join("opts-reports/tissvm-slurm.sh")).unwrap();
    assert!(script.contains("--max-procs=9"), "{script}");

    // A plan in the middle of its work when Slurm interrupts its task: it
    // suspends into the report directory, the task starts again and
    // resumes it from the snapshot, and no effect runs twice.
    let long = root.path().join("long");
    std::fs::create_dir_all(&long).unwrap();
    std::fs::write(
        long.join("long.tiss"),
        format!(
            "TASK \"long\"\n\n{}\n{}\n{}",
            step("first", "echo a >> effects.txt"),
            step("wait", "sleep 4"),
            step("last", "echo c >> effects.txt")
        ),
    )
    .unwrap();
    // `scontrol requeue`: SIGTERM to the task, the sleep killed (it runs again).
    interrupted(&cluster, root.path(), "requeued", 1, &|task| {
        vec!["scontrol".into(), "requeue".into(), task.into()]
    });
    // Time is up: SIGUSR1 to the batch script alone (`--signal=B:USR1`), the
    // sleep let finish; the script requeues its task itself.
    interrupted(&cluster, root.path(), "warned", 1, &|task| {
        vec!["scancel".into(), "--batch".into(), "--signal=USR1".into(), task.into()]
    });
    // KillWait ran out: SIGKILL to every process of the task at once, no
    // time to suspend; requeued, the plan resumes from its checkpoint, the
    // sleep in flight running again, nothing before it.
    let killed_dir = root.path().join("killed");
    interrupted(&cluster, root.path(), "killed", 0, &|task| {
        // Every tissvm of the task (the run of many plans, the plan's own,
        // in a process group of its own), then whatever Slurm still has;
        // the job ends, and is requeued by hand, as Slurm would requeue it.
        let tissvms = tissvms_of(&killed_dir);
        assert!(tissvms.len() >= 2, "the task's tissvm processes: {tissvms:?}");
        for pid in tissvms {
            // SAFETY: SIGKILL to a process this test's job started.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        // The batch script may have ended already, and the job with it.
        slurm_command(&cluster, "scancel", &["--full", "--signal=KILL", task]);
        let began = Instant::now();
        while slurm_command(&cluster, "squeue", &["-h", "-j", task, "-o", "%T"]).contains("RUNNING") {
            assert!(began.elapsed() < Duration::from_secs(60), "the killed task did not end");
            std::thread::sleep(Duration::from_millis(200));
        }
        vec!["scontrol".into(), "requeue".into(), task.into()]
    });
}

/// A command policy reads what srun, salloc and `sbatch --wrap` run on the
/// cluster: each line removes the victim when nothing judges it, and is
/// refused under `deny = ["rm *"]` (exit 5), the victim kept.
fn what_slurm_runs_is_judged(cluster: &Cluster, root: &Path) {
    let ws = root.join("policy");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join("deny.toml"), "[commands]\ndeny = [\"rm *\"]\n").unwrap();
    for command in ["srun -N1 -n1 rm victim", "salloc -N1 rm victim", "sbatch --wait -N1 --wrap='rm victim'"]
    {
        let plan = format!("TASK \"t\"\nSTEP \"s\" {{\n    RUN \"{command}\" TIMEOUT 60s\n}}\n");
        std::fs::write(ws.join("p.tiss"), plan).unwrap();
        for policy in [None, Some("deny.toml")] {
            std::fs::write(ws.join("victim"), "keep me").unwrap();
            let mut args = vec!["run", "p.tiss", "--workdir", ".", "--sandbox-profile", "none"];
            args.extend(policy.map(|file| ["--policy", file]).into_iter().flatten());
            let run = tissvm(cluster, &ws, &args);
            match policy {
                None => assert!(!ws.join("victim").exists(), "{command}: did not run: {}", run.stderr),
                Some(_) => {
                    assert_eq!(run.code, Some(5), "{command}: {}", run.stderr);
                    assert!(
                        run.stdout.contains("is denied by the pattern `rm *`"),
                        "{command}: {}",
                        run.stdout
                    );
                    assert!(ws.join("victim").exists(), "{command}: rm ran");
                }
            }
        }
    }
}

/// Submits `long/` with the report directory `name`, runs `interrupt` (a
/// command line, given the array task) once its first effect is there,
/// lets the requeued task start at once, and checks it resumed, having
/// suspended into `snapshots` snapshots (none when killed outright).
fn interrupted(
    cluster: &Cluster,
    root: &Path,
    name: &str,
    snapshots: usize,
    interrupt: &dyn Fn(&str) -> Vec<String>,
) {
    let submitted = tissvm(cluster, root, &["slurm", "long", "--report-dir", name]);
    submitted.expect(0);
    let job = submitted
        .stderr
        .split("submitted job array ")
        .nth(1)
        .and_then(|rest| rest.split(':').next())
        .unwrap_or_else(|| panic!("no job id:\n{}", submitted.stderr))
        .to_string();
    let task = format!("{job}_1");
    let effects = root.join(name).join("workspaces/long/long.tiss/effects.txt");
    let began = Instant::now();
    while !effects.exists() {
        assert!(
            began.elapsed() < Duration::from_secs(60),
            "{name}: the task never started: {}",
            slurm_command(cluster, "squeue", &[])
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(500));
    let command = interrupt(&task);
    let said =
        slurm_command(cluster, &command[0], &command[1..].iter().map(String::as_str).collect::<Vec<_>>());
    assert!(!said.to_lowercase().contains("error"), "{name}: {command:?}: {said}");
    // Slurm holds a requeued job back a while (BeginTime): let it start
    // now. Done when the job has left the queue with its plan's report final.
    let dir = root.join(name);
    let report_file = dir.join("long/long.tiss.json");
    let began = Instant::now();
    let mut gone_since: Option<Instant> = None;
    let mut pending_since: Option<Instant> = None;
    loop {
        let state = slurm_command(cluster, "squeue", &["-h", "-j", &job, "-o", "%T"]);
        if state.contains("PENDING") {
            // Not in the second it was requeued in: slurmd compares a
            // credential's time with its revocation's in whole seconds, and
            // refuses a task started then ("Job credential revoked"), which
            // is not requeued again (seen once in CI).
            if pending_since.get_or_insert_with(Instant::now).elapsed() > Duration::from_millis(1100) {
                slurm_command(cluster, "scontrol", &["update", &format!("JobId={task}"), "StartTime=now"]);
            }
        } else {
            pending_since = None;
        }
        let suspended = std::fs::read(&report_file)
            .ok()
            .is_some_and(|r| serde_json::from_slice::<Json>(&r).is_ok_and(|r| r["status"] == "suspended"));
        if state.trim().is_empty() {
            if !suspended {
                break;
            }
            // Not requeued (yet?): give the controller a moment, then say why.
            let since = *gone_since.get_or_insert_with(Instant::now);
            if since.elapsed() > Duration::from_secs(15) {
                let log = std::fs::read_to_string(cluster.dir.join("log/slurmctld.log")).unwrap_or_default();
                let tail: Vec<&str> = log.lines().rev().take(30).collect();
                panic!(
                    "{name}: the job ended with its plan suspended and was not requeued; slurmctld:\n{}",
                    tail.join("\n")
                );
            }
        } else {
            gone_since = None;
        }
        assert!(began.elapsed() < Duration::from_secs(120), "{name}: the requeued task did not end: {state}");
        std::thread::sleep(Duration::from_millis(500));
    }
    let output = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("slurm-"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
        .collect::<String>();
    let final_report = report(&report_file);
    assert_eq!(final_report["status"], "passed", "{name}: {final_report}\n{output}");
    // Resumed, not started again: the first step's effect is there once.
    assert_eq!(std::fs::read_to_string(&effects).unwrap(), "a\nc\n", "{name}: {output}");
    // A plan that ends without a snapshot leaves no directory for them.
    let snapshot_dir = dir.join("long/long.tiss.snapshots");
    let written = if snapshot_dir.exists() { tiss_test_support::listing(&snapshot_dir) } else { Vec::new() };
    assert_eq!(
        written.len(),
        snapshots,
        "{name}: the snapshots it suspended into, in the report directory: {written:?}"
    );
    let collected = tissvm(cluster, root, &["collect", name]);
    collected.expect(0);
    assert!(collected.stdout.contains("1 passed, 0 failed"), "{}", collected.stdout);
}

/// A run option `tissvm run` would refuse is refused before anything is
/// submitted (no cluster needed: `sbatch` is never reached).
#[test]
fn slurm_checks_the_run_options_before_submitting() {
    let root = tempfile::tempdir().unwrap();
    std::fs::write(root.path().join("p.tiss"), "TASK \"p\"\n\nSTEP \"s\" {\n    LOG \"x\"\n}\n").unwrap();
    for (args, says) in [
        (&["--budget", "RUNS=1"][..], "`RUNS` is not a cost dimension"),
        (&["--policy", "missing policy.toml"][..], "missing policy.toml"),
        (&["--max-procs", "0"][..], "--max-procs 0"),
    ] {
        let run = crate::common::tissvm(
            root.path(),
            &[&["slurm", "p.tiss", "--report-dir", "r"], args].concat(),
            &[],
        );
        run.expect(2);
        assert!(run.stderr.contains(says), "{args:?}: {}", run.stderr);
        assert!(!root.path().join("r/tissvm-slurm.sh").exists(), "{args:?}: nothing is written or submitted");
    }
}
