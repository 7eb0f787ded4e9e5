//! Ctrl-C (SIGINT) during `tissvm run` and `resume` (book: reference/snapshots.md): the first
//! asks the run to suspend at the next instruction boundary, letting a RUN
//! in flight finish; the second also kills the process group of the RUN in
//! flight (which then did not complete: it runs again on resume); a third
//! exits at once, without a snapshot (the watchdog of `tiss-host`'s `watchdog.rs`
//! ends the RUN in flight).
//!
//! A scheduler's signals suspend too (book: guide/many-plans.md), so "time is up" never loses
//! work: SIGUSR1 (Slurm's warning before the end) counts as the first
//! Ctrl-C, letting a RUN in flight finish; SIGTERM as the second, killing
//! the RUN in flight, which runs again on resume. Neither exits without a
//! snapshot, however often it comes.
//!
//! `tissvm debug` handles SIGINT alone ([`install_ctrl_c`]): a debugging
//! session is a person at a terminal, and SIGTERM ends it.
//!
//! The handler only counts and writes a fixed line to stderr (both
//! async-signal-safe); the CLI's stop check ([`requested`]), the process
//! runner's cancel check ([`kill_requested`], see `process::run_cancellable`)
//! and the terminal questions of `runner/os_host.rs` read the count. RUN commands
//! run in their own process groups, so a Ctrl-C at the terminal reaches
//! tissvm alone.

use std::io;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

static COUNT: AtomicUsize = AtomicUsize::new(0);
static INSTALLED: AtomicBool = AtomicBool::new(false);
static KILLED_RUNS: AtomicUsize = AtomicUsize::new(0);

/// The exit status after a third Ctrl-C (128 + SIGINT, as a shell reports it).
pub const EXIT_STATUS: i32 = 130;

extern "C" fn on_sigint(_signal: libc::c_int) {
    let n = COUNT.fetch_add(1, Ordering::SeqCst) + 1;
    let message: &[u8] = match n {
        1 => {
            b"\ntissvm: interrupted: suspending at the next instruction boundary (a RUN in flight is let \
              finish; Ctrl-C again to kill it)\n"
        }
        2 => b"\ntissvm: interrupted again: killing the RUN in flight, then suspending (Ctrl-C again to exit at once)\n",
        _ => b"\ntissvm: interrupted a third time: exiting now, without a snapshot\n",
    };
    // SAFETY: errno is saved and restored around write(2); write(2) and
    // _exit(2) are async-signal-safe.
    unsafe {
        let errno = libc::__errno_location();
        let saved = *errno;
        libc::write(2, message.as_ptr().cast(), message.len());
        if n >= 3 {
            libc::_exit(EXIT_STATUS);
        }
        *errno = saved;
    }
}

/// SIGUSR1: suspend at the next boundary, as one Ctrl-C.
extern "C" fn on_sigusr1(_signal: libc::c_int) {
    on_scheduler_signal(
        1,
        b"\ntissvm: SIGUSR1: suspending at the next instruction boundary (a RUN in flight is let finish)\n",
    );
}

/// SIGTERM: kill the RUN in flight and suspend, as two Ctrl-Cs.
extern "C" fn on_sigterm(_signal: libc::c_int) {
    on_scheduler_signal(2, b"\ntissvm: SIGTERM: killing the RUN in flight, then suspending\n");
}

/// Raises the count to `at_least` (never to the third Ctrl-C's exit).
fn on_scheduler_signal(at_least: usize, message: &[u8]) {
    COUNT.fetch_max(at_least, Ordering::SeqCst);
    // SAFETY: errno is saved and restored around write(2), which is
    // async-signal-safe.
    unsafe {
        let errno = libc::__errno_location();
        let saved = *errno;
        libc::write(2, message.as_ptr().cast(), message.len());
        *errno = saved;
    }
}

type Handler = extern "C" fn(libc::c_int);

/// Installs the SIGINT, SIGUSR1 and SIGTERM handlers of a run (`run`,
/// `resume`), once; later calls do nothing. Slow system calls are restarted
/// (`SA_RESTART`); `poll` returns early, which the process runner and the
/// terminal questions rely on.
pub fn install() -> io::Result<()> {
    install_handlers(&[(libc::SIGINT, on_sigint), (libc::SIGUSR1, on_sigusr1), (libc::SIGTERM, on_sigterm)])
}

/// Installs the SIGINT handler alone, for an interactive session (`tissvm
/// debug`): Ctrl-C pauses it, but SIGTERM still ends it, as `kill PID`
/// should (the watchdog of `tiss-host`'s `watchdog.rs` then ends its RUN in flight).
pub fn install_ctrl_c() -> io::Result<()> {
    install_handlers(&[(libc::SIGINT, on_sigint)])
}

fn install_handlers(handlers: &[(libc::c_int, Handler)]) -> io::Result<()> {
    if INSTALLED.swap(true, Ordering::SeqCst) {
        return Ok(());
    }
    // SAFETY: a zeroed sigaction is valid; the handler is an extern "C" fn
    // that only touches atomics and async-signal-safe calls.
    let result = handlers.iter().try_for_each(|&(signal, handler)| {
        // SAFETY: see above.
        let r = unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = handler as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut())
        };
        if r == 0 { Ok(()) } else { Err(()) }
    });
    if result.is_err() {
        INSTALLED.store(false, Ordering::SeqCst);
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Whether the handler is installed (then RUNs can be cancelled).
pub fn installed() -> bool {
    INSTALLED.load(Ordering::SeqCst)
}

/// Ctrl-Cs so far.
pub fn count() -> usize {
    COUNT.load(Ordering::SeqCst)
}

/// The run should suspend at the next instruction boundary.
pub fn requested() -> bool {
    count() >= 1
}

/// The RUN in flight should be killed.
pub fn kill_requested() -> bool {
    count() >= 2
}

/// [`kill_requested`], waiting up to `grace` for it: a scheduler signals
/// every process of a job at once (Slurm's requeue, its time limit), so a
/// RUN's command can die of the SIGTERM a moment before tissvm's own lands.
pub fn kill_requested_within(grace: std::time::Duration) -> bool {
    let end = std::time::Instant::now() + grace;
    while !kill_requested() {
        if std::time::Instant::now() >= end {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    true
}

/// [`requested`] for a check before every instruction: a relaxed load,
/// which (unlike a sequentially consistent one) lets the dispatch loop keep
/// its state in registers across the check. Nothing else is published
/// through the count, so no ordering is lost.
#[inline]
pub fn requested_fast() -> bool {
    COUNT.load(Ordering::Relaxed) >= 1
}

/// As if Ctrl-C had come `times` times in all (1: pause or suspend at the
/// next boundary; 2: also kill the RUN in flight): how a debugger front end
/// (`tissvm dap`) pauses and ends a run from its reading thread.
pub fn raise(times: usize) {
    COUNT.fetch_max(times.min(2), Ordering::SeqCst);
}

/// Forgets the Ctrl-Cs so far: the debugger, paused by one, goes on
/// afterwards, and the next Ctrl-C pauses it again.
pub fn reset() {
    COUNT.store(0, Ordering::SeqCst);
}

/// RUNs killed by a second Ctrl-C so far.
pub fn killed_runs() -> usize {
    KILLED_RUNS.load(Ordering::SeqCst)
}

pub(crate) fn note_killed_run() {
    KILLED_RUNS.fetch_add(1, Ordering::SeqCst);
}
