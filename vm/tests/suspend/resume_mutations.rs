//! Every one-byte change to a real snapshot, re-sealed, is refused before
//! anything runs or resumes to a defined end (issue 25, item 18; book: reference/snapshots.md:
//! validated before anything runs). Before the fix, a change to the
//! command of a RUN waiting for its policy approval let that RUN start
//! unasked — the policy given on resume no longer held it — and the answer
//! given for it then failed the PAUSE after it: effects ran, then exit 2.
//!
//! Two snapshots of one plan, written by the real `tissvm run` and
//! `resume`: waiting for a RUN's approval (resumed with `--policy` and
//! `--answer approve`), and at a PAUSE inside a task's TRY, inside nested
//! steps, with an ENV set (resumed with `--answer continue`). Each byte of
//! each is changed to four values, and each mutant resumed through the
//! runner library — in child processes, this test binary again (one a
//! core, each given every Nth mutant), with a hermetic environment, so
//! thousands of resumes cost no process start each — whose RUNs append to a file of the workspace. No mutant may both
//! run an effect and end invalid (2) or internal (70).

use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::common::{Fixture, key_file};
use tiss_compiler::diagnostics::render::ErrorFormat;
use tiss_compiler::diagnostics::render::termcolor::{ColorChoice, StandardStream};
use tiss_vm::runner::options::{HostOptions, OutputFormat, ReportOptions, SnapshotOptions};
use tiss_vm::runner::plan::Diagnostics;
use tiss_vm::runner::resume::{ResumeOptions, resume};
use tiss_vm::session::snapshot::HEADER_LEN;
use tiss_vm::session::snapshot_key::KEY_FILE_VAR;

const PLAN: &str = r#"TASK "Mutations"
DEFINE_TASK "helper" {
    RUN "echo helper $GREETING >> effects.log" TIMEOUT 5s
    TRY {
        PAUSE "in the task"
        ASSERT LAST_RUN.EXIT_CODE == 0
    } CATCH AS e {
        LOG "caught ${e.MESSAGE}"
    }
    RUN "echo helper done >> effects.log"
}
STEP "one" {
    VAR n = 3
    ENV GREETING = "hi"
    RUN "echo guarded ${n} >> effects.log" TIMEOUT 5s
    RUN "echo after >> effects.log"
    STEP "inner" {
        CALL "helper"
        RUN "echo inner ${n} >> effects.log"
    }
    PAUSE "last"
    WRITE "out.txt" <<TEXT
done ${n}
TEXT
}
"#;

const POLICY: &str = "[commands]\napprove = [\"echo guarded *\"]\n";

/// What the child is given: the snapshots, each with its effects file as
/// written and its answer, separated by this variable's separator.
const CASES: &str = "TISS_MUTATION_CASES";
const SEPARATOR: char = '\u{1f}';
/// The policy file the child resumes with.
const POLICY_FILE: &str = "TISS_MUTATION_POLICY";
/// `I/N`: the child resumes every Nth mutant, from the Ith.
const SHARD: &str = "TISS_MUTATION_SHARD";

/// One snapshot to mutate: its file, the workspace's `effects.log` when it
/// was written, the `--answer` it is resumed with.
struct Case {
    snapshot: PathBuf,
    effects: String,
    answer: &'static str,
}

#[test]
fn no_mutated_snapshot_runs_an_effect_and_then_fails() {
    let fx = Fixture::new();
    let policy = fx.write("policy.toml", POLICY);
    let run = fx.run(PLAN, &["--policy", &policy, "--non-interactive"]);
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    let approval = keep(&fx, "mutations-1.snap", "approve");
    let original = fx.ws().join(".tiss/mutations-1.snap");
    let resumed = fx.tissvm(&[
        "resume",
        original.to_str().unwrap(),
        "--policy",
        &policy,
        "--answer",
        "approve",
        "--non-interactive",
    ]);
    assert_eq!(resumed.code, Some(3), "{}", resumed.stderr);
    let pause = keep(&fx, "mutations-2.snap", "continue");
    let arg = [&approval, &pause]
        .map(|c| format!("{}{SEPARATOR}{}{SEPARATOR}{}", c.snapshot.display(), c.effects, c.answer))
        .join(&SEPARATOR.to_string());

    let started = std::time::Instant::now();
    // The mutants shared among one child a core (each child's stderr is
    // its own to redirect), run at once.
    let shards = std::thread::available_parallelism().map_or(1, |n| n.get()).min(4);
    let children: Vec<_> = (0..shards)
        .map(|shard| {
            Command::new(std::env::current_exe().unwrap())
                .args(["--exact", &child_test_name(), "--nocapture", "--test-threads", "1"])
                .env_clear()
                .env("PATH", std::env::var_os("PATH").unwrap_or_default())
                .env("HOME", fx.path("home"))
                .env(KEY_FILE_VAR, key_file())
                .env(CASES, &arg)
                .env(SHARD, format!("{shard}/{shards}"))
                .env(POLICY_FILE, &policy)
                .current_dir(fx.root.path())
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("start a mutating child")
        })
        .collect();
    // Each read on a thread of its own: a full pipe would stop its child.
    let outputs: Vec<_> = std::thread::scope(|scope| {
        let readers: Vec<_> =
            children.into_iter().map(|child| scope.spawn(|| child.wait_with_output())).collect();
        readers.into_iter().map(|reader| reader.join().unwrap().expect("run a mutating child")).collect()
    });
    let mut stdout = String::new();
    for child in outputs {
        let out = String::from_utf8_lossy(&child.stdout);
        assert!(child.status.success(), "{out}\n{}", String::from_utf8_lossy(&child.stderr));
        stdout.push_str(&out);
    }
    let (mut refused, mut resumed, mut bad) = (0, 0, Vec::new());
    for line in stdout.lines().filter_map(|l| l.strip_prefix("mutant ")) {
        let mut parts = line.splitn(4, ' ');
        let (at, code, ran, said) =
            (parts.next().unwrap(), parts.next().unwrap(), parts.next().unwrap(), parts.next().unwrap_or(""));
        match (code, ran) {
            ("2" | "70", "ran") => bad.push(format!("{at}: exit {code} after effects: {said}")),
            ("70", _) => bad.push(format!("{at}: exit 70: {said}")),
            ("2", _) => refused += 1,
            _ => resumed += 1,
        }
    }
    eprintln!("{refused} refused, {resumed} resumed, in {:.1?}", started.elapsed());
    assert!(bad.is_empty(), "{} mutants ran effects, then failed:\n{}", bad.len(), bad.join("\n"));
    assert!(refused > 3_000 && resumed > 300, "{refused} refused, {resumed} resumed");
}

/// The snapshot `name` the last command wrote, copied aside before any
/// resume marks it, with the workspace's effects file as it stands.
fn keep(fx: &Fixture, name: &str, answer: &'static str) -> Case {
    let kept = fx.path(name);
    std::fs::copy(fx.ws().join(".tiss").join(name), &kept).unwrap();
    let effects = std::fs::read_to_string(fx.ws().join("effects.log")).unwrap_or_default();
    Case { snapshot: kept, effects, answer }
}

/// This file's child test as the harness names it.
fn child_test_name() -> String {
    let module = module_path!().split_once("::").map_or("", |(_, rest)| rest);
    format!("{module}::mutating_child")
}

/// Not a test of its own: run by the test above with [`CASES`] set, it
/// resumes every mutant in this process and prints a line per mutant:
/// `mutant WHERE EXIT ran|none STDERR-ON-ONE-LINE`.
#[test]
fn mutating_child() {
    let Ok(cases) = std::env::var(CASES) else { return };
    let policy = PathBuf::from(std::env::var(POLICY_FILE).unwrap());
    let parts: Vec<&str> = cases.split(SEPARATOR).collect();
    let shard = std::env::var(SHARD).unwrap();
    let (shard, shards) = shard.split_once('/').unwrap();
    let (shard, shards): (usize, usize) = (shard.parse().unwrap(), shards.parse().unwrap());
    let mut mutants = 0;
    let scratch = tempfile::tempdir().unwrap();
    for (k, case) in parts.chunks(3).enumerate() {
        let [snapshot, effects, answer] = case else { panic!("a case is three parts") };
        let bytes = std::fs::read(snapshot).unwrap();
        for at in HEADER_LEN..bytes.len() {
            let byte = bytes[at];
            let mut values = vec![byte ^ 1, byte ^ 0x80, 0, 0xff];
            values.sort_unstable();
            values.dedup();
            values.retain(|&v| v != byte);
            for value in values {
                mutants += 1;
                if mutants % shards != shard {
                    continue;
                }
                let mut mutant = bytes.clone();
                mutant[at] = value;
                tisslang::codec::seal::seal(&mut mutant, HEADER_LEN);
                let (code, ran, said) = resume_mutant(scratch.path(), &mutant, effects, answer, &policy);
                println!("mutant {k}:{at}={value:#04x} {code} {} {said}", if ran { "ran" } else { "none" });
            }
        }
    }
}

/// Resumes one mutant in a fresh workspace holding `effects.log` as it was
/// at the snapshot; its exit status, whether any effect ran, and what it
/// said on stderr, on one line.
fn resume_mutant(
    dir: &Path,
    mutant: &[u8],
    effects: &str,
    answer: &str,
    policy: &Path,
) -> (u8, bool, String) {
    let _ = std::fs::remove_dir_all(dir.join("m"));
    let ws = dir.join("m/ws");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join("effects.log"), effects).unwrap();
    let snapshot = dir.join("m/s.snap");
    std::fs::write(&snapshot, mutant).unwrap();
    let options = ResumeOptions {
        snapshot,
        plan: None,
        answer: Some(answer.to_string()),
        comment: None,
        force: false,
        raise_budget: false,
        host: HostOptions {
            workdir: Some(ws.clone()),
            non_interactive: true,
            policy: Some(policy.to_path_buf()),
            sandbox_profile: Some(tiss_host::sandbox::Profile::None),
            ..HostOptions::default()
        },
        report: ReportOptions { output_format: OutputFormat::Json, report: Some(dir.join("m/report.json")) },
        snapshot_options: SnapshotOptions { snapshot_dir: None, checkpoint: None },
        arguments: Vec::new(),
    };
    // What the runner says goes to a file of its own, read back after.
    let said = dir.join("m/stderr");
    let code = with_stderr_in(&said, || {
        let out = &mut Diagnostics {
            format: ErrorFormat::Human,
            stderr: StandardStream::stderr(ColorChoice::Never),
        };
        resume(out, &options)
    });
    let ran =
        std::fs::read_to_string(ws.join("effects.log")).unwrap() != effects || ws.join("out.txt").exists();
    let said = std::fs::read_to_string(&said).unwrap_or_default();
    let said: String =
        said.lines().map(str::trim).collect::<Vec<_>>().join(" | ").chars().take(600).collect();
    (code, ran, said)
}

/// Runs `f` with this process's stderr going to the file `path`.
fn with_stderr_in<T>(path: &Path, f: impl FnOnce() -> T) -> T {
    let file = std::fs::File::create(path).unwrap();
    // SAFETY: duplicates descriptor 2, which this process owns.
    let saved = unsafe { libc::dup(2) };
    assert!(saved >= 0, "dup: {}", std::io::Error::last_os_error());
    // SAFETY: replaces descriptor 2 (saved above) by the open file.
    let replaced = unsafe { libc::dup2(file.as_raw_fd(), 2) };
    assert_eq!(replaced, 2, "dup2: {}", std::io::Error::last_os_error());
    let out = f();
    // SAFETY: `saved` is the descriptor duplicated above.
    unsafe {
        libc::dup2(saved, 2);
        libc::close(saved);
    }
    out
}
