use super::*;
use crate::sandbox::UNCONFINED;

fn env() -> Vec<(String, String)> {
    vec![("PATH".to_string(), "/usr/local/bin:/usr/bin:/bin".to_string())]
}

fn run_in(dir: &Path, command: &str, timeout: Option<Duration>, cap: usize) -> Output {
    let env = env();
    let spec = ProcessSpec {
        command,
        cwd: WorkDir::Path(dir),
        env: &env,
        timeout,
        output_cap: cap,
        sandbox: &UNCONFINED,
    };
    run(&spec, None).expect("runs")
}

fn sh(command: &str) -> Output {
    run_in(Path::new("/"), command, None, DEFAULT_OUTPUT_CAP)
}

/// Dead, or a zombie waiting for its reaper.
fn is_dead(pid: i32) -> bool {
    // SAFETY: signal 0 only checks.
    if unsafe { libc::kill(pid, 0) } != 0 {
        return true;
    }
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    stat.rsplit_once(')').is_none_or(|(_, rest)| rest.trim_start().starts_with(['Z', 'X']))
}

fn wait_dead(pid: i32) -> bool {
    // Dying takes a moment after SIGKILL is delivered.
    for _ in 0..100 {
        if is_dead(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    false
}

#[test]
fn exit_codes_and_streams() {
    let r = sh("echo out; echo err >&2; exit 3");
    assert_eq!(r.stdout, "out\n");
    assert_eq!(r.stderr, "err\n");
    assert_eq!(r.exit_code, 3);
    assert!(!r.timed_out);
    assert_eq!(r.command, "echo out; echo err >&2; exit 3");
    assert_eq!(sh("true").exit_code, 0);
    assert_eq!(sh("kill -9 $$").exit_code, 137);
    assert_eq!(sh("kill -TERM $$").exit_code, 143);
    assert_eq!(sh("no-such-command-xyz").exit_code, 127);
}

#[test]
fn stdin_is_empty() {
    let r = sh("cat; echo end");
    assert_eq!(r.stdout, "end\n");
}

#[test]
fn cwd_is_used() {
    let dir = tempfile::tempdir().unwrap();
    let r = run_in(dir.path(), "pwd", None, 1000);
    let expected = dir.path().canonicalize().unwrap();
    assert_eq!(r.stdout.trim_end(), expected.to_str().unwrap());
}

#[test]
fn spawn_failure_is_a_command_error() {
    let dir = tempfile::tempdir().unwrap();
    let gone = dir.path().join("gone");
    std::fs::create_dir(&gone).unwrap();
    std::fs::remove_dir(&gone).unwrap();
    let env = env();
    let spec = ProcessSpec {
        command: "true",
        cwd: WorkDir::Path(&gone),
        env: &env,
        timeout: None,
        output_cap: 10,
        sandbox: &UNCONFINED,
    };
    match run(&spec, None) {
        Err(Error::Command(message)) => assert!(message.contains("gone"), "{message}"),
        other => panic!("expected a command error, got {other:?}"),
    }
}

#[test]
fn exact_environment() {
    let env = vec![("A".to_string(), "1".to_string()), ("B".to_string(), "two words".to_string())];
    let spec = ProcessSpec {
        command: "/usr/bin/env",
        cwd: WorkDir::Path(Path::new("/")),
        env: &env,
        timeout: None,
        output_cap: 1000,
        sandbox: &UNCONFINED,
    };
    let r = run(&spec, None).unwrap();
    let mut lines: Vec<&str> = r.stdout.lines().filter(|l| !l.starts_with("PWD=")).collect();
    lines.sort_unstable();
    assert_eq!(lines, ["A=1", "B=two words"]);
}

#[test]
fn non_utf8_is_replaced() {
    let r = sh(r"printf 'a\377b'; printf '\376' >&2");
    assert_eq!(r.stdout, "a\u{FFFD}b");
    assert_eq!(r.stderr, "\u{FFFD}");
}

#[test]
fn head_and_tail_are_kept() {
    let r = run_in(Path::new("/"), "seq 1 100000", None, 100);
    assert!(r.stdout.starts_with("1\n2\n3\n"), "{}", r.stdout);
    assert!(r.stdout.ends_with("99999\n100000\n"), "{}", r.stdout);
    let total = (1..=100000).map(|i: u32| i.to_string().len() + 1).sum::<usize>();
    assert!(r.stdout.contains(&format!("\n… [{} bytes omitted] …\n", total - 100)), "{}", r.stdout);
    // Exactly at the cap: nothing omitted.
    let r = run_in(Path::new("/"), "printf 0123456789", None, 10);
    assert_eq!(r.stdout, "0123456789");
    let r = run_in(Path::new("/"), "printf 01234567890", None, 10);
    assert_eq!(r.stdout, "01234\n… [1 bytes omitted] …\n67890");
}

#[test]
fn capture_ring_wraps_in_order() {
    let mut c = Capture::new(8);
    for chunk in [&b"ab"[..], b"cdef", b"g", b"hij", b"klm", b"n"] {
        c.push(chunk);
    }
    assert_eq!(c.total(), 14);
    assert_eq!(c.into_string(), "abcd\n… [6 bytes omitted] …\nklmn");
    let mut c = Capture::new(0);
    c.push(b"xyz");
    assert_eq!(c.into_string(), "\n… [3 bytes omitted] …\n");
}

#[test]
fn cut_characters_are_not_mangled() {
    let mut c = Capture::new(6);
    c.push("ééééé".as_bytes()); // 10 bytes: the cuts fall inside characters
    assert_eq!(c.into_string(), "é\n… [4 bytes omitted] …\né");
}

#[test]
fn both_streams_are_read_concurrently_and_streamed() {
    let env = env();
    let spec = ProcessSpec {
        command: "head -c 3000000 /dev/zero >&2; head -c 2000000 /dev/zero; echo tail >&2",
        cwd: WorkDir::Path(Path::new("/")),
        env: &env,
        timeout: Some(Duration::from_secs(60)),
        output_cap: 1000,
        sandbox: &UNCONFINED,
    };
    let (mut out, mut err) = (0usize, Vec::new());
    let mut sink = |s: Stream, data: &[u8]| match s {
        Stream::Stdout => out += data.len(),
        Stream::Stderr => err.extend_from_slice(data),
    };
    let r = run(&spec, Some(&mut sink)).unwrap();
    assert_eq!(out, 2_000_000);
    assert_eq!(err.len(), 3_000_005);
    assert!(err.ends_with(b"tail\n"));
    assert!(r.stderr.ends_with("tail\n"));
    assert_eq!(r.exit_code, 0);
}

#[test]
fn a_command_that_closes_stdout_early() {
    let r = sh("echo first; exec >&-; sleep 0.1; echo err >&2; exit 5");
    assert_eq!(r.stdout, "first\n");
    assert_eq!(r.stderr, "err\n");
    assert_eq!(r.exit_code, 5);
    let r = sh("exec >&- 2>&-; sleep 0.1; exit 4");
    assert_eq!((r.stdout.as_str(), r.stderr.as_str(), r.exit_code), ("", "", 4));
}

#[test]
fn a_background_child_holding_stdout_does_not_hang_the_run() {
    let started = Instant::now();
    let r = sh("sleep 30 & echo $!");
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    assert_eq!(r.exit_code, 0);
    assert!(!r.timed_out);
    let pid: i32 = r.stdout.trim().parse().unwrap();
    assert!(wait_dead(pid), "the background child {pid} survived");
}

#[test]
fn a_background_child_not_holding_the_pipes_is_killed_too() {
    let r = sh("sleep 30 >/dev/null 2>&1 & echo $!");
    let pid: i32 = r.stdout.trim().parse().unwrap();
    assert!(wait_dead(pid), "the background child {pid} survived");
}

#[test]
fn a_fast_command_does_not_time_out() {
    let r = run_in(Path::new("/"), "echo hi", Some(Duration::from_secs(30)), 100);
    assert!(!r.timed_out);
    assert_eq!(r.exit_code, 0);
    assert!(r.duration_ms < 10_000);
}

#[test]
fn timeout_kills_the_whole_group_even_when_it_ignores_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    // The shell and every descendant ignore SIGTERM (SIG_IGN survives fork
    // and exec); each child forks a grandchild. 7 processes in all.
    let command = r#"trap '' TERM
for i in 1 2 3; do
  sh -c 'echo $$ >> pids; sh -c "echo \$\$ >> pids; exec sleep 30" & exec sleep 30' &
done
echo $$ >> pids
echo started
wait"#;
    let started = Instant::now();
    let r = run_in(dir.path(), command, Some(Duration::from_millis(1000)), 1000);
    let elapsed = started.elapsed();
    assert!(r.timed_out);
    assert_eq!(r.exit_code, 124);
    assert_eq!(r.stdout, "started\n");
    assert!(elapsed >= Duration::from_millis(1000), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(8), "{elapsed:?}");
    assert!(r.duration_ms >= 1000);
    let pids = std::fs::read_to_string(dir.path().join("pids")).unwrap();
    let pids: Vec<i32> = pids.lines().map(|l| l.parse().unwrap()).collect();
    assert_eq!(pids.len(), 7, "{pids:?}");
    for pid in pids {
        assert!(wait_dead(pid), "process {pid} survived the timeout");
    }
}

#[test]
fn a_cancelled_run_has_its_group_killed_and_says_so() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let dir = tempfile::tempdir().unwrap();
    let env = env();
    let spec = ProcessSpec {
        command: "trap '' TERM; sleep 30 & echo $! > child; echo started; wait",
        cwd: WorkDir::Path(dir.path()),
        env: &env,
        timeout: Some(Duration::from_secs(60)),
        output_cap: 100,
        sandbox: &UNCONFINED,
    };
    let flag = AtomicBool::new(false);
    let child = dir.path().join("child");
    let cancel = || {
        // Cancel once the command has started its child.
        if child.exists() {
            flag.store(true, Ordering::SeqCst);
        }
        flag.load(Ordering::SeqCst)
    };
    let started = Instant::now();
    let (r, cancelled) = run_cancellable(&spec, None, Some(&cancel)).unwrap();
    assert!(cancelled);
    assert!(!r.timed_out);
    assert_eq!(r.exit_code, 128 + 9, "the shell ignored SIGTERM, so SIGKILL ended it");
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    let pid: i32 = std::fs::read_to_string(&child).unwrap().trim().parse().unwrap();
    assert!(wait_dead(pid), "the child {pid} survived the cancel");
    // Never cancelled: an ordinary run.
    let never = || false;
    let (r, cancelled) =
        run_cancellable(&ProcessSpec { command: "echo hi", ..spec }, None, Some(&never)).unwrap();
    assert!(!cancelled);
    assert_eq!((r.stdout.as_str(), r.exit_code), ("hi\n", 0));
}

#[test]
fn timeout_of_a_cooperative_command_is_quick() {
    let started = Instant::now();
    let r = run_in(Path::new("/"), "echo a; sleep 30", Some(Duration::from_millis(300)), 100);
    assert!(r.timed_out);
    assert_eq!(r.exit_code, 124);
    assert_eq!(r.stdout, "a\n");
    assert!(started.elapsed() < Duration::from_secs(5));
}

/// A kernel before 5.5 refuses `CLONE_CLEAR_SIGHAND`: the child then
/// puts the handlers back itself, and the command runs as ever.
#[cfg(target_arch = "x86_64")]
#[test]
fn without_clone_clear_sighand_the_child_resets_the_handlers_itself() {
    crate::spawn::CLEARS.store(false, std::sync::atomic::Ordering::Relaxed);
    let env = [("PATH".to_string(), "/usr/bin:/bin".to_string())];
    let spec = ProcessSpec {
        command: "grep ^SigBlk /proc/self/status",
        cwd: WorkDir::Path(Path::new("/")),
        env: &env,
        timeout: None,
        output_cap: 4096,
        sandbox: &UNCONFINED,
    };
    let result = run(&spec, None);
    crate::spawn::CLEARS.store(true, std::sync::atomic::Ordering::Relaxed);
    let result = result.expect("runs");
    assert_eq!((result.exit_code, result.stdout.as_str()), (0, "SigBlk:\t0000000000000000\n"));
}
