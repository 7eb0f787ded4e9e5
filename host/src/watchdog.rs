//! The watchdog: a small helper process that kills the process groups of the
//! RUNs in flight when the process that started them dies, however it dies.
//! tissvm kills a RUN's group itself on timeout, Ctrl-C, SIGTERM and when the
//! shell exits (`process/`), but a SIGKILL (an OOM kill, a scheduler's
//! last word, `kill -9`) ends it with no chance to, and the RUN's shell and
//! children, in their own process group, would live on under PID 1.
//!
//! `PR_SET_PDEATHSIG` on the shell alone would not do: it reaches the
//! shell, not its children (`sleep 30 & sleep 30`), and it fires when the
//! *thread* that forked dies. So the first RUN of a process forks this
//! watchdog, which holds one end of a socket pair and shares one page of
//! memory with the process: each RUN's group is registered in that page
//! by the RUN's first process itself, before it execs (`register`), and unregistered once the
//! group is dead and before its shell is reaped (`unwatch`), so the group id
//! cannot have been reused. Registering is a store, not a message: the
//! watchdog sleeps until the process dies (waking it twice per RUN cost more
//! than anything else the parent did per RUN but the spawn itself). When
//! the process dies, the kernel closes its end of the socket; the watchdog
//! reads end of file, sends SIGKILL to every group still in the page, and
//! exits. A normal exit does the same with nothing registered.
//!
//! The watchdog is forked without exec, so between `fork` and `_exit` it
//! makes only async-signal-safe system calls (no allocation, no locks). It
//! ignores the signals that end a process by default (only SIGKILL ends it)
//! and has its own process group, so a signal to tissvm's group (Ctrl-C at a
//! terminal, `kill -- -PGID`) leaves it there to clean up.
//!
//! Not covered: a process that leaves its RUN's group (`setsid`, `setpgid`)
//! escapes, as it escapes the group kills of `process/`.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Mutex, OnceLock};

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

/// The registered groups (0: a free slot), in a page shared with the
/// watchdog: mapped once, before the first watchdog is forked, and kept for
/// the life of the process, so a watchdog started to replace a dead one
/// sees the groups already registered.
pub type Table = [AtomicI32; CAPACITY];

static TABLE: OnceLock<&'static Table> = OnceLock::new();

/// Starts the watchdog if none is running, or replaces one that has died,
/// and returns the shared table in which a RUN's first process registers
/// its group ([`register`]) before it execs.
pub fn ready() -> io::Result<&'static Table> {
    let mut link = LINK.lock().unwrap_or_else(|e| e.into_inner());
    if link.as_ref().is_none_or(|current| !alive(current)) {
        if let Some(broken) = link.take() {
            drop(broken.socket);
            // SAFETY: ends and reaps our own child (gone already, in all
            // likelihood: that is why the link broke).
            unsafe {
                libc::kill(broken.pid, libc::SIGKILL);
                libc::waitpid(broken.pid, std::ptr::null_mut(), 0);
            }
            crate::sandbox::reaper::release(broken.pid);
        }
        *link = Some(start()?);
    }
    table()
}

/// Registers a RUN's process group: if this process dies before
/// [`unwatch`], the watchdog kills the group. Called by the RUN's first
/// process between leading its group and `exec`, so no command of the RUN
/// runs unguarded: atomics only, async-signal-safe. A full table leaves the
/// group unguarded, as `CAPACITY` says.
pub fn register(table: &Table, pgid: libc::pid_t) {
    let _ =
        table.iter().any(|slot| slot.compare_exchange(0, pgid, Ordering::SeqCst, Ordering::SeqCst).is_ok());
}

/// Unregisters a group: it is dead, and its id is about to be released.
pub fn unwatch(pgid: libc::pid_t) {
    let _link = LINK.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(table) = TABLE.get()
        && let Some(slot) = table.iter().find(|slot| slot.load(Ordering::SeqCst) == pgid)
    {
        slot.store(0, Ordering::SeqCst);
    }
}

/// The shared page of registered groups, mapped at the first call.
fn table() -> io::Result<&'static Table> {
    if let Some(table) = TABLE.get() {
        return Ok(table);
    }
    // SAFETY: a fresh anonymous mapping, shared with the children forked
    // after it (the watchdog), never unmapped; zero-filled, that is every
    // slot free.
    let page = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            size_of::<Table>(),
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if page == libc::MAP_FAILED {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the mapping is large enough, page-aligned, and lives for the
    // rest of the process; atomics make the sharing sound.
    let table = unsafe { &*page.cast::<Table>() };
    Ok(TABLE.get_or_init(|| table))
}

/// Whether the watchdog still holds its end of the link (no hang-up on
/// ours): one `poll` that neither waits nor wakes anyone.
fn alive(link: &Link) -> bool {
    let mut fd = libc::pollfd { fd: link.socket.as_raw_fd(), events: 0, revents: 0 };
    // SAFETY: one valid pollfd.
    let ready = unsafe { libc::poll(&mut fd, 1, 0) };
    ready == 0 || fd.revents & (libc::POLLHUP | libc::POLLERR) == 0
}

/// Forks the watchdog; returns the parent's end of the link.
fn start() -> io::Result<Link> {
    let table = table()?;
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
    let pid = crate::sandbox::reaper::claimed(|| {
        // SAFETY: the child runs only `watchdog_main`, which makes
        // async-signal-safe system calls and never returns.
        match unsafe { libc::fork() } {
            -1 => Err(io::Error::last_os_error()),
            // SAFETY: see above.
            0 => unsafe { watchdog_main(theirs.as_raw_fd(), max_fd, table) },
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
/// link and `table` the shared page. Uses async-signal-safe system calls
/// only.
unsafe fn watchdog_main(socket: RawFd, max_fd: libc::c_uint, table: &Table) -> ! {
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
        // Nothing is ever sent: the read returns at end of file, once the
        // process has died.
        loop {
            let mut buf = [0u8; 4];
            let n = libc::recv(0, buf.as_mut_ptr().cast(), buf.len(), 0);
            if n == 0 || n < 0 && *libc::__errno_location() != libc::EINTR {
                break;
            }
        }
        for slot in table {
            let group = slot.load(Ordering::SeqCst);
            if group > 0 {
                libc::kill(-group, libc::SIGKILL);
            }
        }
        libc::_exit(0)
    }
}
