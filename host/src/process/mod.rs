//! The command runner behind RUN (book: reference/statements.md, reference/sandbox.md): the command executed
//! directly when it has no shell syntax (`direct.rs`), else `/bin/sh -c
//! COMMAND`, confined by the run's sandbox (`sandbox/`: its own session and
//! process group, and whatever else the profile enforces), with exactly the
//! environment it is given, stdin from `/dev/null`, and stdout/stderr
//! captured into bounded head-and-tail buffers while every byte can still be
//! streamed to a caller (the run log). "The shell" below is the command's
//! first process, whichever it is.
//!
//! Lifetime of a run:
//!
//! 1. The shell runs until it exits or the timeout expires. Both pipes and (on
//!    Linux ≥ 5.3) a pidfd are watched with one `poll`, so nothing busy-waits
//!    and neither pipe can fill up and stall the command.
//! 2. Timeout: the whole process group gets SIGTERM; the shell has a grace
//!    period ([`KILL_GRACE`]) to exit, then the group gets SIGKILL. The result
//!    is `exit_code = 124`, `timed_out = true`.
//! 3. Whether the shell exited or timed out, what is left of its process group
//!    (background children) gets SIGTERM, then SIGKILL as soon as the pipes
//!    close or after [`KILL_GRACE`]: a RUN leaves no process behind in its
//!    group. The signals are sent before the shell is reaped, so the group id
//!    cannot have been reused. Once the shell is reaped, the sandbox ends
//!    the rest of the tree wherever it went (`setsid`, a double fork): the
//!    cgroup kill, the sweep of the subreaper's orphans.
//! 4. The pipes are drained until end of file, or for at most [`DRAIN_LIMIT`]
//!    once they stop delivering data (a process that left the group with
//!    `setsid` could hold them open forever).
//!
//! From its start until its shell is reaped, the group is registered with
//! the watchdog (`watchdog.rs`), which kills it if this process dies first,
//! SIGKILL included.
//!
//! [`run_cancellable`] also takes a cancel check (`tissvm`'s second Ctrl-C):
//! while it is given, the wait wakes at least every [`CANCEL_POLL`], and
//! once the check says so the group is ended as on a timeout (step 2), but
//! the result is marked cancelled rather than timed out.

mod capture;
mod group;
mod pipes;
#[cfg(test)]
mod tests;

use std::io;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::ExitStatus;
use std::time::{Duration, Instant};

pub use capture::Capture;
pub use pipes::Stream;

use crate::Error;
use crate::direct;
use crate::process::group::Group;
use crate::process::pipes::Pipes;
use crate::sandbox::{Confined, Sandbox, reaper};
use crate::spawn::{self, Cwd, Launch, Started};
use crate::watchdog;
use crate::workspace::run_dir::RunDir;

/// How long a process group has between SIGTERM and SIGKILL.
pub const KILL_GRACE: Duration = Duration::from_millis(200);

/// How long the pipes are still read, once the process group is dead, while
/// they deliver nothing.
pub const DRAIN_LIMIT: Duration = Duration::from_millis(200);

/// A sensible per-stream capture cap for callers without an opinion: 1 MiB
/// (the first and the last 512 KiB are kept).
pub const DEFAULT_OUTPUT_CAP: usize = 1 << 20;

/// The exit code of a run that timed out (as `timeout(1)` reports it).
pub const TIMEOUT_EXIT_CODE: i64 = 124;

/// What a command did: its captured output, how it ended, how long it took.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    pub command: String,
    pub stdout: String,
    pub stderr: String,
    /// The exit status, 128 + the signal that ended it, or
    /// [`TIMEOUT_EXIT_CODE`].
    pub exit_code: i64,
    pub duration_ms: u64,
    pub timed_out: bool,
}

/// Receives every chunk of output as it arrives (e.g. to stream it to a log).
pub type OutputSink<'a> = dyn FnMut(Stream, &[u8]) + 'a;

/// What to run, and how.
#[derive(Debug, Clone)]
pub struct ProcessSpec<'a> {
    /// Run directly if it has no shell syntax, else given to `/bin/sh -c`.
    pub command: &'a str,
    /// The working directory.
    pub cwd: WorkDir<'a>,
    /// The complete environment; nothing is inherited.
    pub env: &'a [(String, String)],
    pub timeout: Option<Duration>,
    /// Bytes kept per stream (half from the head, half from the tail).
    pub output_cap: usize,
    /// The confinement the command starts in, and what ends its tree.
    pub sandbox: &'a Sandbox,
}

/// Where a command runs.
#[derive(Debug, Clone, Copy)]
pub enum WorkDir<'a> {
    /// A directory by its path.
    Path(&'a Path),
    /// A directory the workspace holds open: the child enters it by its
    /// descriptor, and a direct command's `PWD` is its real path.
    Held(&'a RunDir<'a>),
}

impl WorkDir<'_> {
    /// The path to name it by in messages.
    fn shown(&self) -> &Path {
        match self {
            WorkDir::Path(path) => path,
            WorkDir::Held(dir) => dir.real_path(),
        }
    }

    /// Its real path: the `PWD` of a command run directly.
    fn real(&self) -> io::Result<std::path::PathBuf> {
        match self {
            WorkDir::Path(path) => std::fs::canonicalize(path),
            WorkDir::Held(dir) => Ok(dir.real_path().to_path_buf()),
        }
    }
}

/// How often a run with a cancel check looks at it, at the longest.
pub const CANCEL_POLL: Duration = Duration::from_millis(50);

/// Runs `spec.command` (see the module documentation). `full_output`, if given, receives
/// every chunk of both streams as it arrives. A command that cannot be
/// started is a [`Error::Command`]; a non-zero exit is not an error.
pub fn run(spec: &ProcessSpec<'_>, full_output: Option<&mut OutputSink<'_>>) -> Result<Output, Error> {
    run_cancellable(spec, full_output, None).map(|(result, _)| result)
}

/// [`run`], ended early (the process group terminated as on a timeout) once
/// `cancel` returns true. The flag returned says whether that happened; the
/// result then has the exit status the shell died with and `timed_out` false.
pub fn run_cancellable(
    spec: &ProcessSpec<'_>,
    mut full_output: Option<&mut OutputSink<'_>>,
    cancel: Option<&dyn Fn() -> bool>,
) -> Result<(Output, bool), Error> {
    let start = Instant::now();
    let no_watchdog = |e: io::Error| {
        Error::Command(format!(
            "cannot start the watchdog that ends a RUN's processes if tissvm is killed: {e}"
        ))
    };
    let watchdog = watchdog::ready().map_err(no_watchdog)?;
    // Declared before the group, so dropped after it: on an early return the
    // group is killed and its shell reaped, then what is left of the tree.
    let mut direct = false;
    let (child, mut confined) = match direct::plain_words(spec.command) {
        // A program that cannot be started directly is the shell's to
        // report, in its words and with its exit status.
        Some(words) => match spawn(spec, Some(&words), watchdog)? {
            Ok(started) => {
                direct = true;
                started
            }
            Err(_) => spawn(spec, None, watchdog)?.map_err(|e| cannot_start(spec, e))?,
        },
        None => spawn(spec, None, watchdog)?.map_err(|e| cannot_start(spec, e))?,
    };
    let mut stdout = Some(child.stdout);
    let mut stderr = Some(child.stderr);
    // The shell registered its group with the watchdog before it exec'd.
    let mut group =
        Group { pgid: child.pid, pidfd: child.pidfd, exited: false, reaped: false, guarded: true };
    let mut out = Capture::new(spec.output_cap);
    let mut err = Capture::new(spec.output_cap);
    let mut sink = |stream: Stream, data: &[u8]| {
        if let Some(f) = full_output.as_mut() {
            f(stream, data);
        }
    };
    let mut pipes =
        Pipes { stdout: &mut stdout, stderr: &mut stderr, out: &mut out, err: &mut err, buf: Vec::new() };
    let io_error = |e: io::Error| Error::Command(format!("while running `{}`: {e}", spec.command));

    // 1. Until the shell exits or the deadline passes.
    let deadline = spec.timeout.map(|t| start + t);
    let mut timed_out = false;
    let mut cancelled = false;
    loop {
        if group.shell_exited().map_err(io_error)? {
            break;
        }
        if cancel.is_some_and(|c| c()) {
            cancelled = true;
            break;
        }
        let mut wait = match deadline {
            Some(d) => {
                let now = Instant::now();
                if now >= d {
                    timed_out = true;
                    break;
                }
                Some(d - now)
            }
            None => None,
        };
        if cancel.is_some() {
            wait = Some(wait.map_or(CANCEL_POLL, |w| w.min(CANCEL_POLL)));
        }
        pipes.poll_once(group.pidfd(), group.wait_cap(wait), &mut sink).map_err(io_error)?;
    }

    // 2. Timeout (or cancelled): SIGTERM the group, give the shell a grace
    //    period to exit.
    if timed_out || cancelled {
        group.signal(libc::SIGTERM);
        let grace_end = Instant::now() + KILL_GRACE;
        loop {
            if group.shell_exited().map_err(io_error)? {
                break;
            }
            let now = Instant::now();
            if now >= grace_end {
                break;
            }
            pipes
                .poll_once(group.pidfd(), group.wait_cap(Some(grace_end - now)), &mut sink)
                .map_err(io_error)?;
        }
    }

    // 3. Whatever is left of the group: SIGTERM, then SIGKILL once the pipes
    //    close (no writer left) or after the grace period.
    if !(timed_out || cancelled) || group.shell_exited().map_err(io_error)? {
        group.signal(libc::SIGTERM);
        let grace_end = Instant::now() + KILL_GRACE;
        while !pipes.closed() {
            let now = Instant::now();
            if now >= grace_end {
                break;
            }
            pipes.poll_once(None, Some(grace_end - now), &mut sink).map_err(io_error)?;
        }
    }
    group.signal(libc::SIGKILL);
    let status = group.wait_shell().map_err(io_error)?;
    // The rest of the tree, wherever it went (`setsid`, a double fork).
    confined.end();

    // 4. Drain what is still in the pipes.
    let mut idle_since = Instant::now();
    while !pipes.closed() {
        let now = Instant::now();
        let idle_end = idle_since + DRAIN_LIMIT;
        if now >= idle_end {
            break;
        }
        if pipes.poll_once(None, Some(idle_end - now), &mut sink).map_err(io_error)? {
            idle_since = Instant::now();
        }
    }
    drop(stdout);
    drop(stderr);
    // The line the shell would have printed for a program a signal ended.
    if direct
        && !(timed_out || cancelled)
        && let Some(line) = direct::signal_report(status)
    {
        err.push(line.as_bytes());
        sink(Stream::Stderr, line.as_bytes());
    }

    let exit_code = if timed_out { TIMEOUT_EXIT_CODE } else { exit_code(status) };
    let result = Output {
        command: spec.command.to_string(),
        stdout: out.into_string(),
        stderr: err.into_string(),
        exit_code,
        duration_ms: u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX),
        timed_out,
    };
    Ok((result, cancelled))
}

/// Starts the command confined: `words` directly, else `/bin/sh -c`. The
/// outer error is the sandbox's (a security violation); the inner one the
/// spawn's.
fn spawn<'s>(
    spec: &ProcessSpec<'s>,
    words: Option<&[String]>,
    watchdog: &'static watchdog::Table,
) -> Result<io::Result<(Started, Confined<'s>)>, Error> {
    let mut env = spec.env.to_vec();
    // The shell exports the directory it starts in as PWD (keeping a PWD it
    // is given that names that directory); so does the fast path.
    if words.is_some()
        && let Ok(real) = spec.cwd.real()
    {
        let given = spec.env.iter().rev().find(|(name, _)| name == "PWD").map(|(_, value)| Path::new(value));
        if !given.is_some_and(|given| given.is_absolute() && same_file(given, &real)) {
            env.retain(|(name, _)| name != "PWD");
            env.push(("PWD".to_string(), real.to_string_lossy().into_owned()));
        }
    }
    let cwd = match spec.cwd {
        WorkDir::Path(path) => Cwd::Path(path),
        // A descriptor of the host's would lead out of `strict`'s view.
        WorkDir::Held(dir) if spec.sandbox.enters_mount_namespace() => Cwd::Path(dir.real_path()),
        WorkDir::Held(dir) => Cwd::Descriptor(dir.descriptor()),
    };
    let launch = match words {
        Some([program, args @ ..]) => {
            Launch::new(program, &args.iter().map(String::as_str).collect::<Vec<_>>(), &env, cwd)
        }
        _ => Launch::new("/bin/sh", &["-c", spec.command], &env, cwd),
    };
    let launch = match launch {
        Ok(launch) => launch,
        Err(e) => return Ok(Err(e)),
    };
    let mut confined = spec.sandbox.confine().map_err(|e| {
        Error::Security(format!("the `{}` sandbox cannot confine a RUN: {e}", spec.sandbox.profile().name()))
    })?;
    let started = reaper::claimed(|| {
        spawn::start(&launch, &mut confined, watchdog).map(|s| {
            let pid = s.pid;
            (s, pid)
        })
    });
    Ok(started.map(|started| (started, confined)))
}

/// Whether two paths name the same file (device and inode).
fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => (a.dev(), a.ino()) == (b.dev(), b.ino()),
        _ => false,
    }
}

fn cannot_start(spec: &ProcessSpec<'_>, e: io::Error) -> Error {
    Error::Command(format!("cannot start `/bin/sh -c` in `{}`: {e}", spec.cwd.shown().display()))
}

/// The status code, or 128 + the signal that killed the process.
fn exit_code(status: ExitStatus) -> i64 {
    match (status.code(), status.signal()) {
        (Some(code), _) => i64::from(code),
        (None, Some(signal)) => 128 + i64::from(signal),
        (None, None) => -1,
    }
}
