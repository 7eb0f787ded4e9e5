//! The command runner behind RUN (SPEC §3, §8): the command executed
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

use std::io::{self, Read};
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::ExitStatus;
use std::time::{Duration, Instant};

use crate::host::direct;
use crate::host::sandbox::{Confined, Sandbox, reaper};
use crate::host::spawn::{self, Cwd, Launch, Started};
use crate::host::workspace::RunDir;
use crate::host::{HostError, watchdog};
use crate::machine::value::RunResult;

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

const CHUNK: usize = 64 * 1024;

/// Which stream a chunk of output came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
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
/// started is a [`HostError::Command`]; a non-zero exit is not an error.
pub fn run(spec: &ProcessSpec<'_>, full_output: Option<&mut OutputSink<'_>>) -> Result<RunResult, HostError> {
    run_cancellable(spec, full_output, None).map(|(result, _)| result)
}

/// [`run`], ended early (the process group terminated as on a timeout) once
/// `cancel` returns true. The flag returned says whether that happened; the
/// result then has the exit status the shell died with and `timed_out` false.
pub fn run_cancellable(
    spec: &ProcessSpec<'_>,
    mut full_output: Option<&mut OutputSink<'_>>,
    cancel: Option<&dyn Fn() -> bool>,
) -> Result<(RunResult, bool), HostError> {
    let start = Instant::now();
    let no_watchdog = |e: io::Error| {
        HostError::Command(format!(
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
    let io_error = |e: io::Error| HostError::Command(format!("while running `{}`: {e}", spec.command));

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
    let result = RunResult {
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
) -> Result<io::Result<(Started, Confined<'s>)>, HostError> {
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
        HostError::Security(format!(
            "the `{}` sandbox cannot confine a RUN: {e}",
            spec.sandbox.profile().name()
        ))
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

fn cannot_start(spec: &ProcessSpec<'_>, e: io::Error) -> HostError {
    HostError::Command(format!("cannot start `/bin/sh -c` in `{}`: {e}", spec.cwd.shown().display()))
}

/// The status code, or 128 + the signal that killed the process.
fn exit_code(status: ExitStatus) -> i64 {
    match (status.code(), status.signal()) {
        (Some(code), _) => i64::from(code),
        (None, Some(signal)) => 128 + i64::from(signal),
        (None, None) => -1,
    }
}

/// The two pipes and their captures.
struct Pipes<'p> {
    stdout: &'p mut Option<std::fs::File>,
    stderr: &'p mut Option<std::fs::File>,
    out: &'p mut Capture,
    err: &'p mut Capture,
    /// What a read fills, [`CHUNK`] bytes once a pipe has been readable.
    buf: Vec<u8>,
}

impl Pipes<'_> {
    fn closed(&self) -> bool {
        self.stdout.is_none() && self.stderr.is_none()
    }

    /// Waits (at most `wait`; `None` = no limit) until a pipe is readable or
    /// `extra` (the shell's pidfd) is; reads one chunk from each readable
    /// pipe. Returns whether any output (or end of file) was seen.
    fn poll_once(
        &mut self,
        extra: Option<RawFd>,
        wait: Option<Duration>,
        sink: &mut dyn FnMut(Stream, &[u8]),
    ) -> io::Result<bool> {
        let mut fds: Vec<libc::pollfd> = Vec::with_capacity(3);
        let mut push = |fd: RawFd| {
            fds.push(libc::pollfd { fd, events: libc::POLLIN, revents: 0 });
        };
        let out_fd = self.stdout.as_ref().map(AsRawFd::as_raw_fd);
        let err_fd = self.stderr.as_ref().map(AsRawFd::as_raw_fd);
        out_fd.into_iter().chain(err_fd).chain(extra).for_each(&mut push);
        if fds.is_empty() {
            // Nothing to watch: just let the time pass (only reached with a
            // limit: the callers never wait without limit on nothing).
            if let Some(wait) = wait {
                std::thread::sleep(wait);
            }
            return Ok(false);
        }
        let timeout_ms = match wait {
            None => -1,
            // Round up so a short wait does not turn into a busy loop.
            Some(d) => i32::try_from(d.as_micros().div_ceil(1000)).unwrap_or(i32::MAX),
        };
        // SAFETY: `fds` is a valid array of `fds.len()` pollfd structs.
        let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, timeout_ms) };
        if ready < 0 {
            let e = io::Error::last_os_error();
            // A signal (Ctrl-C): back to the caller, which looks at its
            // deadline and cancel check and comes back.
            return if e.kind() == io::ErrorKind::Interrupted { Ok(false) } else { Err(e) };
        }
        if ready == 0 {
            return Ok(false);
        }
        let readable = |fd: Option<RawFd>| {
            fd.is_some_and(|fd| {
                fds.iter()
                    .any(|p| p.fd == fd && p.revents & (libc::POLLIN | libc::POLLHUP | libc::POLLERR) != 0)
            })
        };
        let (out_ready, err_ready) = (readable(out_fd), readable(err_fd));
        if out_ready || err_ready {
            // Made at the first read, not at every wake: zeroing 64 KiB is
            // not free.
            self.buf.resize(CHUNK, 0);
            if out_ready {
                read_chunk(self.stdout, &mut self.buf, self.out, Stream::Stdout, sink)?;
            }
            if err_ready {
                read_chunk(self.stderr, &mut self.buf, self.err, Stream::Stderr, sink)?;
            }
        }
        Ok(out_ready || err_ready)
    }
}

/// Reads one chunk from a readable pipe; closes it at end of file.
fn read_chunk<R: Read>(
    pipe: &mut Option<R>,
    buf: &mut [u8],
    capture: &mut Capture,
    stream: Stream,
    sink: &mut dyn FnMut(Stream, &[u8]),
) -> io::Result<()> {
    let Some(reader) = pipe.as_mut() else { return Ok(()) };
    loop {
        match reader.read(buf) {
            Ok(0) => {
                *pipe = None;
                return Ok(());
            }
            Ok(n) => {
                capture.push(&buf[..n]);
                sink(stream, &buf[..n]);
                return Ok(());
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// The shell and its process group. Dropping it (an error, a panicking
/// callback) kills the group and reaps the shell.
struct Group {
    /// The process group id (= the shell's pid).
    pgid: libc::pid_t,
    pidfd: Option<OwnedFd>,
    exited: bool,
    reaped: bool,
    /// Registered with the watchdog (by the shell, before it exec'd), which
    /// kills the group if this process dies.
    guarded: bool,
}

impl Group {
    /// Waits for the shell, once the group is dead; the watchdog forgets the
    /// group first, as its id is free once the shell is reaped.
    fn wait_shell(&mut self) -> io::Result<ExitStatus> {
        if self.guarded {
            watchdog::unwatch(self.pgid);
            self.guarded = false;
        }
        let mut status = 0;
        let waited = loop {
            // SAFETY: plain syscall on our own, not yet reaped, child.
            if unsafe { libc::waitpid(self.pgid, &mut status, 0) } >= 0 {
                break Ok(ExitStatus::from_raw(status));
            }
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                break Err(e);
            }
        };
        self.reaped = true;
        reaper::release(self.pgid);
        waited
    }

    fn pidfd(&self) -> Option<RawFd> {
        if self.exited { None } else { self.pidfd.as_ref().map(AsRawFd::as_raw_fd) }
    }

    /// Without a pidfd, nothing wakes the poll when the shell exits: then
    /// look every 10 ms.
    fn wait_cap(&self, wait: Option<Duration>) -> Option<Duration> {
        if self.pidfd.is_some() || self.exited {
            return wait;
        }
        let tick = Duration::from_millis(10);
        Some(wait.map_or(tick, |w| w.min(tick)))
    }

    /// Whether the shell has exited, without reaping it (so its pid, which is
    /// the group id, stays reserved until [`Group::wait_shell`]).
    fn shell_exited(&mut self) -> io::Result<bool> {
        if self.exited {
            return Ok(true);
        }
        // SAFETY: an all-zero siginfo_t is a valid value; waitid fills it.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        loop {
            // SAFETY: plain syscall on our own child, `info` is writable.
            let r = unsafe {
                libc::waitid(
                    libc::P_PID,
                    self.pgid as libc::id_t,
                    &mut info,
                    libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
                )
            };
            if r == 0 {
                break;
            }
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
        // SAFETY: waitid succeeded, so `info` is initialized.
        self.exited = unsafe { info.si_pid() } != 0;
        Ok(self.exited)
    }

    /// Signals the whole group. Only called before the shell is reaped.
    fn signal(&self, signal: libc::c_int) {
        if !self.reaped {
            // SAFETY: plain syscall. ESRCH (nothing left) is fine.
            unsafe {
                libc::killpg(self.pgid, signal);
            }
        }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        if !self.reaped {
            self.signal(libc::SIGKILL);
            let _ = self.wait_shell();
        }
    }
}

/// A bounded capture of one stream: the first `cap / 2` bytes, the last
/// `cap - cap / 2` bytes, and a count of everything.
#[derive(Debug)]
pub struct Capture {
    head_cap: usize,
    tail_cap: usize,
    head: Vec<u8>,
    /// A ring once full: the oldest byte is at `tail_pos`.
    tail: Vec<u8>,
    tail_pos: usize,
    total: u64,
}

impl Capture {
    pub fn new(cap: usize) -> Capture {
        let head_cap = cap / 2;
        Capture {
            head_cap,
            tail_cap: cap - head_cap,
            head: Vec::new(),
            tail: Vec::new(),
            tail_pos: 0,
            total: 0,
        }
    }

    /// Bytes seen so far.
    pub fn total(&self) -> u64 {
        self.total
    }

    pub fn push(&mut self, mut data: &[u8]) {
        self.total += data.len() as u64;
        if self.head.len() < self.head_cap {
            let n = (self.head_cap - self.head.len()).min(data.len());
            self.head.extend_from_slice(&data[..n]);
            data = &data[n..];
        }
        let cap = self.tail_cap;
        if data.is_empty() || cap == 0 {
            return;
        }
        if data.len() >= cap {
            self.tail.clear();
            self.tail.extend_from_slice(&data[data.len() - cap..]);
            self.tail_pos = 0;
            return;
        }
        if self.tail.len() < cap {
            let n = (cap - self.tail.len()).min(data.len());
            self.tail.extend_from_slice(&data[..n]);
            data = &data[n..];
        }
        while !data.is_empty() {
            let n = (cap - self.tail_pos).min(data.len());
            self.tail[self.tail_pos..self.tail_pos + n].copy_from_slice(&data[..n]);
            self.tail_pos = (self.tail_pos + n) % cap;
            data = &data[n..];
        }
    }

    /// The text: everything if it fit, else head + a marker line + tail.
    /// Invalid UTF-8 is replaced (U+FFFD), never fatal.
    pub fn into_string(self) -> String {
        let mut tail = Vec::with_capacity(self.tail.len());
        tail.extend_from_slice(&self.tail[self.tail_pos..]);
        tail.extend_from_slice(&self.tail[..self.tail_pos]);
        let kept = (self.head.len() + tail.len()) as u64;
        if kept == self.total {
            let mut all = self.head;
            all.extend_from_slice(&tail);
            return String::from_utf8_lossy(&all).into_owned();
        }
        let omitted = self.total - kept;
        // Do not let the cut turn a character split in two into U+FFFD.
        let head = trim_partial_end(&self.head);
        let tail = trim_partial_start(&tail);
        let mut text = String::from_utf8_lossy(head).into_owned();
        text.push_str(&format!("\n… [{omitted} bytes omitted] …\n"));
        text.push_str(&String::from_utf8_lossy(tail));
        text
    }
}

/// Drops an incomplete UTF-8 sequence at the end.
fn trim_partial_end(bytes: &[u8]) -> &[u8] {
    match std::str::from_utf8(bytes) {
        Err(e) if e.error_len().is_none() => &bytes[..e.valid_up_to()],
        _ => bytes,
    }
}

/// Drops up to three continuation bytes at the start.
fn trim_partial_start(bytes: &[u8]) -> &[u8] {
    let skip = bytes.iter().take(3).take_while(|&&b| b & 0xC0 == 0x80).count();
    &bytes[skip..]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::sandbox::UNCONFINED;

    fn env() -> Vec<(String, String)> {
        vec![("PATH".to_string(), "/usr/local/bin:/usr/bin:/bin".to_string())]
    }

    fn run_in(dir: &Path, command: &str, timeout: Option<Duration>, cap: usize) -> RunResult {
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

    fn sh(command: &str) -> RunResult {
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
            Err(HostError::Command(message)) => assert!(message.contains("gone"), "{message}"),
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
}
