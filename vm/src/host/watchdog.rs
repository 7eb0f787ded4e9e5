//! The watchdog: a small helper process that kills the process groups of the
//! RUNs in flight when the process that started them dies, however it dies.
//! tissvm kills a RUN's group itself on timeout, Ctrl-C, SIGTERM and when the
//! shell exits (`process.rs`), but a SIGKILL (an OOM kill, a scheduler's
//! last word, `kill -9`) ends it with no chance to, and the RUN's shell and
//! children, in their own process group, would live on under PID 1.
//!
//! `PR_SET_PDEATHSIG` on the shell alone would not do: it reaches the
//! shell, not its children (`sleep 30 & sleep 30`), and it fires when the
//! *thread* that forked dies. So the first RUN of a process forks this
//! watchdog, which holds one end of a socket pair: each RUN's group is
//! registered on it by the RUN's first process itself, between leading
//! its group and `exec` (`register_self`), so no command runs unguarded,
//! then again by tissvm (`watch`, which restarts a dead watchdog), and
//! unregistered once the group is dead and before its shell is reaped
//! (`unwatch`), so the group id cannot have been reused. When the process
//! dies, the kernel closes its end; the watchdog reads end of file, sends
//! SIGKILL to every group still registered, and exits. A normal exit does
//! the same with nothing registered.
//!
//! The watchdog is forked without exec, so between `fork` and `_exit` it
//! makes only async-signal-safe system calls (no allocation, no locks). It
//! ignores the signals that end a process by default (only SIGKILL ends it)
//! and has its own process group, so a signal to tissvm's group (Ctrl-C at a
//! terminal, `kill -- -PGID`) leaves it there to clean up.
//!
//! Not covered: a process that leaves its RUN's group (`setsid`, `setpgid`)
//! escapes, as it escapes the group kills of `process.rs`.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::{Mutex, MutexGuard};

/// Process groups one watchdog can hold at once (RUNs in flight; `tissvm`
/// has one, a library user may run more in parallel). A group beyond that
/// is not guarded.
const CAPACITY: usize = 1024;

/// The parent's end of the socket pair, and the watchdog's pid (to reap it
/// if it died and is replaced).
struct Link {
    socket: OwnedFd,
    pid: libc::pid_t,
}

static LINK: Mutex<Option<Link>> = Mutex::new(None);

/// Registers a RUN's process group: if this process dies before
/// [`unwatch`], the watchdog kills the group. Starts the watchdog on first
/// use, and again if it has died.
pub fn watch(pgid: libc::pid_t) -> io::Result<()> {
    let mut link = LINK.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(current) = link.as_ref()
        && send(&current.socket, pgid).is_ok()
    {
        return Ok(());
    }
    if let Some(broken) = link.take() {
        drop(broken.socket);
        // SAFETY: ends and reaps our own child (gone already, in all
        // likelihood: that is why the link broke).
        unsafe {
            libc::kill(broken.pid, libc::SIGKILL);
            libc::waitpid(broken.pid, std::ptr::null_mut(), 0);
        }
        crate::host::sandbox::reaper::release(broken.pid);
    }
    let started = start()?;
    send(&started.socket, pgid)?;
    *link = Some(started);
    Ok(())
}

/// Starts the watchdog if none is running, and holds the link until the
/// RUN's first process is started: that process registers its own group
/// ([`Ready::socket`]) before it executes anything, so no command of the
/// RUN runs while its group is unregistered. Held, the link cannot be
/// replaced (and its descriptor closed) under the clone.
pub fn ready() -> io::Result<Ready> {
    let mut link = LINK.lock().unwrap_or_else(|e| e.into_inner());
    if link.is_none() {
        *link = Some(start()?);
    }
    Ok(Ready(link))
}

/// The link, held from [`ready`] until the RUN's process is started.
pub struct Ready(MutexGuard<'static, Option<Link>>);

impl Ready {
    /// The descriptor a started child sends its own pid on ([`register_self`]).
    pub fn socket(&self) -> RawFd {
        self.0.as_ref().map_or(-1, |link| link.socket.as_raw_fd())
    }
}

/// In a freshly started child, before `exec`: registers its own process
/// group (it must lead one already) on `socket`. Async-signal-safe; a
/// failure is left for the parent's [`watch`], which follows.
pub fn register_self(socket: RawFd) {
    if socket < 0 {
        return;
    }
    // SAFETY: plain system calls; 4 bytes from a live buffer.
    unsafe {
        let pid = libc::getpid().to_ne_bytes();
        libc::send(socket, pid.as_ptr().cast(), pid.len(), libc::MSG_NOSIGNAL);
    }
}

/// Unregisters a group: it is dead, and its id is about to be released.
pub fn unwatch(pgid: libc::pid_t) {
    let link = LINK.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(link) = link.as_ref() {
        // A watchdog that is gone holds nothing to forget.
        let _ = send(&link.socket, -pgid);
    }
}

/// One message: `+pgid` to watch, `-pgid` to forget, as one datagram.
fn send(socket: &OwnedFd, value: libc::pid_t) -> io::Result<()> {
    let bytes = value.to_ne_bytes();
    loop {
        // SAFETY: sends 4 bytes from a live buffer; MSG_NOSIGNAL: a dead
        // watchdog is EPIPE, never SIGPIPE.
        let n =
            unsafe { libc::send(socket.as_raw_fd(), bytes.as_ptr().cast(), bytes.len(), libc::MSG_NOSIGNAL) };
        if n == bytes.len() as isize {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// Forks the watchdog; returns the parent's end of the link.
fn start() -> io::Result<Link> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: `fds` has room for the two descriptors.
    let r = unsafe {
        libc::socketpair(libc::AF_UNIX, libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC, 0, fds.as_mut_ptr())
    };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: two fresh descriptors we own.
    let (ours, theirs) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    let max_fd = open_files_limit();
    // Claimed: a subreaper's sweep must not take it for a RUN's orphan.
    let pid = crate::host::sandbox::reaper::claimed(|| {
        // SAFETY: the child runs only `watchdog_main`, which makes
        // async-signal-safe system calls and never returns.
        match unsafe { libc::fork() } {
            -1 => Err(io::Error::last_os_error()),
            // SAFETY: see above.
            0 => unsafe { watchdog_main(theirs.as_raw_fd(), max_fd) },
            pid => Ok((pid, pid)),
        }
    })?;
    drop(theirs);
    Ok(Link { socket: ours, pid })
}

/// The highest descriptor number to close in the child if `close_range`
/// is not available, read before forking.
fn open_files_limit() -> libc::c_uint {
    // SAFETY: getrlimit fills a plain struct.
    let mut limit: libc::rlimit = unsafe { std::mem::zeroed() };
    let soft =
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0 { limit.rlim_cur } else { 1024 };
    soft.min(65_536) as libc::c_uint
}

/// The watchdog's whole life, in the forked child.
///
/// # Safety
/// Only to be called in a freshly forked child, with `socket` its end of the
/// link. Uses async-signal-safe system calls only.
unsafe fn watchdog_main(socket: RawFd, max_fd: libc::c_uint) -> ! {
    unsafe {
        // Only SIGKILL ends it: the default action of these would.
        for signal in [
            libc::SIGHUP,
            libc::SIGINT,
            libc::SIGQUIT,
            libc::SIGTERM,
            libc::SIGUSR1,
            libc::SIGUSR2,
            libc::SIGPIPE,
            libc::SIGALRM,
            libc::SIGTSTP,
            libc::SIGTTIN,
            libc::SIGTTOU,
        ] {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = libc::SIG_IGN;
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
        libc::setpgid(0, 0);
        // Keep the link as descriptor 0 and nothing else: not the parent's
        // end (or end of file would never come), not its stdout (whoever
        // reads it to the end would wait for the watchdog too).
        if libc::dup2(socket, 0) != 0 {
            libc::_exit(1);
        }
        if libc::syscall(libc::SYS_close_range, 1 as libc::c_uint, libc::c_uint::MAX, 0 as libc::c_uint) != 0
        {
            for fd in 1..max_fd {
                libc::close(fd as RawFd);
            }
        }
        let mut groups = [0 as libc::pid_t; CAPACITY];
        loop {
            let mut buf = [0u8; 4];
            let n = libc::recv(0, buf.as_mut_ptr().cast(), buf.len(), 0);
            if n == 0 {
                break;
            }
            if n < 0 {
                if *libc::__errno_location() == libc::EINTR {
                    continue;
                }
                break;
            }
            if n != 4 {
                continue;
            }
            let value = libc::pid_t::from_ne_bytes(buf);
            // A RUN's group is registered twice, by its first process
            // ([`register_self`]) and by tissvm ([`watch`]): held once.
            if value > 0 {
                if groups.contains(&value) {
                    continue;
                }
                if let Some(free) = groups.iter_mut().find(|g| **g == 0) {
                    *free = value;
                }
            } else if let Some(slot) = groups.iter_mut().find(|g| **g == -value) {
                *slot = 0;
            }
        }
        for &group in &groups {
            if group > 0 {
                libc::kill(-group, libc::SIGKILL);
            }
        }
        libc::_exit(0)
    }
}
