//! A built binary's peak resident memory, wall time and exit status, as the
//! kernel counts them for that process alone: for the tests that bound what
//! hostile input may cost (`tissvm` decoding a hostile file, `tissc` given a
//! hostile plan).
//!
//! A process's peak starts at what the process that started it held (Linux
//! counts the parent's memory at `exec`), and a test process holds its
//! hostile inputs and whatever its other tests hold: so the binary is
//! started from a fresh, small process — the test binary run again with one
//! test alone, the caller's own, which calls [`measuring_parent`] — which
//! reaps it with `wait4` (std's `wait` reports no usage) and prints what the
//! kernel says of it.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub const MIB: u64 = 1 << 20;

/// What a measured child did: its exit status (-1 if killed by a signal,
/// as it is when still running at the deadline), its peak RSS in bytes and
/// its wall time. Its stdout and stderr are the files `stdout` and `stderr`
/// of the directory it ran in.
pub struct Measured {
    pub code: i32,
    pub peak: u64,
    pub elapsed_ms: u64,
}

/// Where [`measuring_parent`] finds its command: the binary, its arguments
/// separated by [`SEPARATOR`], the directory it runs in, and its deadline.
const BINARY: &str = "TISS_MEASURED_BINARY";
const ARGS: &str = "TISS_MEASURED_ARGS";
const DIR: &str = "TISS_MEASURED_DIR";
const DEADLINE: &str = "TISS_MEASURED_DEADLINE_MS";
const SEPARATOR: char = '\u{1f}';

/// Runs `binary ARGS` in `dir` and measures it, from this test binary run
/// again with only the test `measuring_parent` of the caller's module
/// (`module`: its `module_path!()`), which must call [`measuring_parent`].
/// Killed when it runs past `deadline`.
pub fn measure(module: &str, binary: &Path, dir: &Path, args: &[&str], deadline: Duration) -> Measured {
    // The test's name as the harness knows it: its path below the crate's root.
    let parent = match module.split_once("::") {
        Some((_, below)) => format!("{below}::measuring_parent"),
        None => "measuring_parent".to_string(),
    };
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", &parent, "--nocapture", "--test-threads", "1"])
        .env(BINARY, binary)
        .env(ARGS, args.join(&SEPARATOR.to_string()))
        .env(DIR, dir)
        .env(DEADLINE, deadline.as_millis().to_string())
        .stdin(Stdio::null())
        .output()
        .expect("run the measuring parent");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout
        .lines()
        .find_map(|l| Some(l.split_once("measured: ")?.1))
        .unwrap_or_else(|| panic!("no measurement:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr)));
    let mut parts = line.split(' ').map(|n| n.parse::<i64>().unwrap());
    let (code, peak, elapsed_ms) = (parts.next().unwrap(), parts.next().unwrap(), parts.next().unwrap());
    Measured { code: code as i32, peak: peak as u64, elapsed_ms: elapsed_ms as u64 }
}

/// The body of the test [`measure`] names: when `measure` started this
/// binary, runs its command and prints what `wait4` says of that child
/// alone. Otherwise (an ordinary test run) it does nothing.
pub fn measuring_parent() {
    let (Some(binary), Ok(args), Some(dir), Ok(deadline)) =
        (std::env::var_os(BINARY), std::env::var(ARGS), std::env::var_os(DIR), std::env::var(DEADLINE))
    else {
        return;
    };
    let (binary, dir) = (PathBuf::from(binary), PathBuf::from(dir));
    let deadline = Duration::from_millis(deadline.parse().expect("a deadline in milliseconds"));
    // Reaped below by wait4, which std's `wait` cannot stand in for.
    #[allow(clippy::zombie_processes)]
    let child = Command::new(&binary)
        .args(args.split(SEPARATOR).filter(|_| !args.is_empty()))
        .current_dir(&dir)
        .stdin(Stdio::null())
        .stdout(File::create(dir.join("stdout")).unwrap())
        .stderr(File::create(dir.join("stderr")).unwrap())
        .spawn()
        .unwrap_or_else(|e| panic!("run {}: {e}", binary.display()));
    let pid = child.id() as libc::pid_t;
    let started = Instant::now();
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: `pid` is our child, not yet reaped (`child` is never waited on).
        let reaped = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        assert!(reaped >= 0, "wait4: {}", std::io::Error::last_os_error());
        if reaped == pid {
            break;
        }
        if started.elapsed() > deadline {
            // SAFETY: our child, not yet reaped: the pid is still its own.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let elapsed = started.elapsed().as_millis();
    let code = if libc::WIFEXITED(status) { libc::WEXITSTATUS(status) } else { -1 };
    // ru_maxrss is in KiB on Linux.
    println!("measured: {code} {} {elapsed}", usage.ru_maxrss as u64 * 1024);
}
