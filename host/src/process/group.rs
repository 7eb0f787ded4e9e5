//! The process group a RUN's shell leads: its exit watched without reaping
//! it, its signals, its reaping.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;
use std::time::Duration;

use crate::sandbox::reaper;
use crate::watchdog;

/// The shell and its process group. Dropping it (an error, a panicking
/// callback) kills the group and reaps the shell.
pub(super) struct Group {
    /// The process group id (= the shell's pid).
    pub(super) pgid: libc::pid_t,
    pub(super) pidfd: Option<OwnedFd>,
    pub(super) exited: bool,
    pub(super) reaped: bool,
    /// Registered with the watchdog (by the shell, before it exec'd), which
    /// kills the group if this process dies.
    pub(super) guarded: bool,
}

impl Group {
    /// Waits for the shell, once the group is dead; the watchdog forgets the
    /// group first, as its id is free once the shell is reaped.
    pub(super) fn wait_shell(&mut self) -> io::Result<ExitStatus> {
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

    pub(super) fn pidfd(&self) -> Option<RawFd> {
        if self.exited { None } else { self.pidfd.as_ref().map(AsRawFd::as_raw_fd) }
    }

    /// Without a pidfd, nothing wakes the poll when the shell exits: then
    /// look every 10 ms.
    pub(super) fn wait_cap(&self, wait: Option<Duration>) -> Option<Duration> {
        if self.pidfd.is_some() || self.exited {
            return wait;
        }
        let tick = Duration::from_millis(10);
        Some(wait.map_or(tick, |w| w.min(tick)))
    }

    /// Whether the shell has exited, without reaping it (so its pid, which is
    /// the group id, stays reserved until [`Group::wait_shell`]).
    pub(super) fn shell_exited(&mut self) -> io::Result<bool> {
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
    pub(super) fn signal(&self, signal: libc::c_int) {
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
