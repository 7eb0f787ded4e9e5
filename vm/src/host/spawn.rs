//! Starting a RUN's first process: `clone3(CLONE_VFORK | CLONE_PIDFD |
//! CLONE_INTO_CGROUP)`, then in the child stdin from `/dev/null`, stdout and
//! stderr into pipes, the working directory, the sandbox's steps, `execve`.
//!
//! Why not `std::process::Command`: its `pre_exec` (which the sandbox needs)
//! makes it `fork` and the child then joined the RUN's cgroup by writing
//! `cgroup.procs` — a cgroup migration, the largest cost of a confined RUN
//! (about 1 ms on this project's VM). `CLONE_INTO_CGROUP` starts the child in
//! the cgroup instead; `CLONE_VFORK` holds the parent until the child has
//! exec'd or failed, and `CLONE_PIDFD` gives the pidfd the run loop polls.
//! Without `CLONE_VM` the child runs on its own copy of memory, so it needs
//! no stack of its own, but (the parent may have threads) it only makes
//! plain system calls: everything it uses is built before the clone. A
//! kernel without `clone3` (before 5.3) gets `fork`, the child then joining
//! every cgroup itself. Under `none` there is no cgroup, and the child
//! shares this process's memory instead (`CLONE_VM`, as `posix_spawn`).
//!
//! A program that cannot be executed is reported with its `errno`, which the
//! child writes into a close-on-exec pipe before `_exit(127)`.

use std::ffi::{CString, c_char};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use crate::host::sandbox::Confined;

/// `CLONE_INTO_CGROUP` of `linux/sched.h`; libc's constant is an `int` and
/// loses the bit (its own deprecation note says so).
const CLONE_INTO_CGROUP: u64 = 0x2_0000_0000;

/// glibc's search path when the environment has no `PATH`.
const DEFAULT_PATH: &str = "/bin:/usr/bin";

/// A program, its arguments, environment and working directory, as the
/// child needs them: C strings made before the clone.
#[derive(Debug)]
pub struct Launch {
    /// Where to look for the program, in order: the program itself if it
    /// has a `/`, else the program in each directory of `PATH`.
    candidates: Vec<CString>,
    argv: Vec<CString>,
    envp: Vec<CString>,
    cwd: CString,
}

impl Launch {
    /// `program` with `args` in `cwd` with exactly `env`; the program is
    /// looked up in `env`'s `PATH` as `execvp` would. A NUL byte anywhere
    /// is an `InvalidInput` error.
    pub fn new(program: &str, args: &[&str], env: &[(String, String)], cwd: &Path) -> io::Result<Launch> {
        let c = |bytes: &[u8]| {
            CString::new(bytes)
                .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte in a RUN"))
        };
        let candidates = if program.contains('/') {
            vec![c(program.as_bytes())?]
        } else {
            let path = env.iter().rev().find(|(name, _)| name == "PATH").map_or(DEFAULT_PATH, |(_, v)| v);
            path.split(':')
                .map(|dir| c(format!("{}/{program}", if dir.is_empty() { "." } else { dir }).as_bytes()))
                .collect::<io::Result<_>>()?
        };
        Ok(Launch {
            candidates,
            argv: std::iter::once(program)
                .chain(args.iter().copied())
                .map(|a| c(a.as_bytes()))
                .collect::<io::Result<_>>()?,
            envp: env.iter().map(|(k, v)| c(format!("{k}={v}").as_bytes())).collect::<io::Result<_>>()?,
            cwd: c(cwd.as_os_str().as_bytes())?,
        })
    }
}

/// A started process: its pid (also its process group's), a pidfd if the
/// kernel gives one, and the read ends of its stdout and stderr.
#[derive(Debug)]
pub struct Started {
    pub pid: libc::pid_t,
    pub pidfd: Option<OwnedFd>,
    pub stdout: File,
    pub stderr: File,
}

/// Starts `launch` confined by `confined` (see the module documentation);
/// the child registers its group on the `watchdog` socket before it execs.
/// The child is not reaped here unless it failed to execute.
pub fn start(launch: &Launch, confined: &mut Confined<'_>, watchdog: RawFd) -> io::Result<Started> {
    let (out_r, out_w) = pipe()?;
    let (err_r, err_w) = pipe()?;
    let (fail_r, fail_w) = pipe()?;
    let null = File::options().read(true).write(true).open("/dev/null")?;
    let argv = pointers(&launch.argv);
    let envp = pointers(&launch.envp);
    let child = Child {
        launch,
        argv: &argv,
        envp: &envp,
        stdio: [null.as_raw_fd(), out_w.as_raw_fd(), err_w.as_raw_fd()],
        fail: fail_w.as_raw_fd(),
        watchdog,
    };
    let (pid, pidfd) =
        if confined.confines() { clone_confined(&child, confined)? } else { clone_shared(&child, confined)? };
    let pid = pid as libc::pid_t;
    drop((out_w, err_w, fail_w, null));
    let pidfd = if pidfd >= 0 {
        // SAFETY: the kernel made this descriptor for us.
        Some(unsafe { OwnedFd::from_raw_fd(pidfd) })
    } else {
        pidfd_open(pid)
    };
    let mut errno = [0u8; 4];
    if read_full(&fail_r, &mut errno)? == errno.len() {
        let mut status = 0;
        // SAFETY: our own child, which has exited.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        return Err(io::Error::from_raw_os_error(i32::from_ne_bytes(errno)));
    }
    Ok(Started { pid, pidfd, stdout: out_r.into(), stderr: err_r.into() })
}

/// The confined child: `clone3` without `CLONE_VM`, into the RUN's v2
/// cgroup; `fork` where there is no `clone3`. Returns the pid and the
/// pidfd (-1 if none).
fn clone_confined(child: &Child<'_>, confined: &mut Confined<'_>) -> io::Result<(libc::pid_t, libc::c_int)> {
    let into = confined.cgroup_dir();
    let mut pidfd: libc::c_int = -1;
    // SAFETY: an all-zero clone_args is valid; the fields set are checked by
    // the kernel.
    let mut args: libc::clone_args = unsafe { std::mem::zeroed() };
    args.flags = (libc::CLONE_VFORK | libc::CLONE_PIDFD) as u64 | into.map_or(0, |_| CLONE_INTO_CGROUP);
    args.pidfd = (&raw mut pidfd) as u64;
    args.exit_signal = libc::SIGCHLD as u64;
    args.cgroup = into.map_or(0, |fd| fd as u64);
    // SAFETY: without CLONE_VM the child has its own copy of this process,
    // so returning from the system call on this stack is as after `fork`;
    // the child only runs `Child::exec`, which never returns.
    let mut pid = unsafe { libc::syscall(libc::SYS_clone3, &raw const args, size_of::<libc::clone_args>()) };
    let mut joined = true;
    if pid < 0 && io::Error::last_os_error().raw_os_error() == Some(libc::ENOSYS) {
        joined = false;
        pidfd = -1;
        // SAFETY: as above; the child only runs `Child::exec`.
        pid = i64::from(unsafe { libc::fork() });
    }
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    if pid == 0 {
        // SAFETY: in the new child, which execs or exits.
        unsafe { child.exec(confined, joined) }
    }
    Ok((pid as libc::pid_t, pidfd))
}

/// The unconfined child (`none`): no cgroup to start in, so it can share
/// this process's memory as `posix_spawn`'s does (`CLONE_VM | CLONE_VFORK`
/// through glibc's `clone`, on a stack of its own), which spares copying the
/// page tables. Signals stay blocked across the clone, and the child puts
/// every handler back to the default before it unblocks them, so no
/// handler of tissvm's runs in it.
fn clone_shared(child: &Child<'_>, confined: &mut Confined<'_>) -> io::Result<(libc::pid_t, libc::c_int)> {
    extern "C" fn entry(payload: *mut libc::c_void) -> libc::c_int {
        // SAFETY: `payload` is the pair below, alive while the parent waits.
        let (child, confined) = unsafe { &mut *payload.cast::<(&Child<'_>, &mut Confined<'_>)>() };
        // SAFETY: plain system calls; the handlers are this child's own copy.
        unsafe {
            for signal in 1..=libc::SIGRTMAX() {
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(signal, std::ptr::null(), &mut old) == 0
                    && old.sa_sigaction != libc::SIG_IGN
                    && old.sa_sigaction != libc::SIG_DFL
                {
                    let mut default: libc::sigaction = std::mem::zeroed();
                    default.sa_sigaction = libc::SIG_DFL;
                    libc::sigaction(signal, &default, std::ptr::null_mut());
                }
            }
            child.exec(confined, false)
        }
    }
    let mut stack = vec![0u8; 64 * 1024];
    // The stack grows down from its (16-byte aligned) top.
    let top = (stack.as_mut_ptr() as usize + stack.len()) & !15;
    let mut payload = (child, confined);
    let mut pidfd: libc::c_int = -1;
    // SAFETY: all-zero sigsets are valid; the calls fill them.
    let (mut all, mut old): (libc::sigset_t, libc::sigset_t) =
        unsafe { (std::mem::zeroed(), std::mem::zeroed()) };
    // SAFETY: the child runs `entry` on `stack` while this thread waits
    // (CLONE_VFORK); `payload`, `stack` and `pidfd` outlive it.
    let pid = unsafe {
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old);
        let pid = libc::clone(
            entry,
            top as *mut libc::c_void,
            libc::CLONE_VM | libc::CLONE_VFORK | libc::CLONE_PIDFD | libc::SIGCHLD,
            (&raw mut payload).cast(),
            &raw mut pidfd,
        );
        let e = io::Error::last_os_error();
        libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
        if pid < 0 {
            return Err(e);
        }
        pid
    };
    drop(stack);
    Ok((pid, pidfd))
}

/// What the child uses, all made before the clone.
struct Child<'a> {
    launch: &'a Launch,
    argv: &'a [*const c_char],
    envp: &'a [*const c_char],
    /// The descriptors to make 0, 1 and 2.
    stdio: [RawFd; 3],
    /// Where the errno of a failure goes.
    fail: RawFd,
    /// The watchdog's socket (`watchdog::Ready::socket`), or -1.
    watchdog: RawFd,
}

impl Child<'_> {
    /// In the child: set up, confine, execute; on failure report the errno
    /// and exit 127. Plain system calls only, no allocation.
    unsafe fn exec(&self, confined: &mut Confined<'_>, joined: bool) -> ! {
        let errno = match unsafe { self.prepare(confined, joined) } {
            Ok(()) => unsafe { self.execute() },
            Err(e) => e.raw_os_error().unwrap_or(libc::EPERM),
        };
        // SAFETY: plain system calls; the child ends here.
        unsafe {
            libc::write(self.fail, errno.to_ne_bytes().as_ptr().cast(), 4);
            libc::_exit(127)
        }
    }

    unsafe fn prepare(&self, confined: &mut Confined<'_>, joined: bool) -> io::Result<()> {
        let check = |r: libc::c_int| if r < 0 { Err(io::Error::last_os_error()) } else { Ok(()) };
        // SAFETY: plain system calls on valid arguments, as std's own child
        // does: an empty signal mask, SIGPIPE back to its default (Rust
        // ignores it), the standard streams, the working directory.
        unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            check(libc::sigprocmask(libc::SIG_SETMASK, &set, std::ptr::null_mut()))?;
            let mut default: libc::sigaction = std::mem::zeroed();
            default.sa_sigaction = libc::SIG_DFL;
            check(libc::sigaction(libc::SIGPIPE, &default, std::ptr::null_mut()))?;
            for (target, &fd) in self.stdio.iter().enumerate() {
                let target = target as RawFd;
                if fd == target {
                    // dup2 onto itself would keep close-on-exec.
                    check(libc::fcntl(fd, libc::F_SETFD, 0))?;
                } else {
                    check(libc::dup2(fd, target))?;
                }
            }
            check(libc::chdir(self.launch.cwd.as_ptr()))?;
        }
        confined.in_child(joined)?;
        // Now that it leads its group, and before it runs anything.
        crate::host::watchdog::register_self(self.watchdog);
        Ok(())
    }

    /// Tries each candidate as `execvp` would; returns the errno to report.
    unsafe fn execute(&self) -> i32 {
        let mut denied = false;
        let mut last = libc::ENOENT;
        for candidate in &self.launch.candidates {
            // SAFETY: NUL-terminated strings and NULL-terminated arrays.
            unsafe { libc::execve(candidate.as_ptr(), self.argv.as_ptr(), self.envp.as_ptr()) };
            last = io::Error::last_os_error().raw_os_error().unwrap_or(libc::ENOENT);
            match last {
                libc::EACCES => denied = true,
                libc::ENOENT | libc::ENOTDIR => {}
                _ => return last,
            }
        }
        if denied { libc::EACCES } else { last }
    }
}

/// A NULL-terminated array of pointers into `strings`.
fn pointers(strings: &[CString]) -> Vec<*const c_char> {
    strings.iter().map(|s| s.as_ptr()).chain(std::iter::once(std::ptr::null())).collect()
}

/// A close-on-exec pipe: (read end, write end).
fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: fresh descriptors we own.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Reads until `buf` is full or end of file; returns how much was read.
fn read_full(fd: &OwnedFd, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        // SAFETY: reading into the unfilled part of `buf`.
        let n = unsafe { libc::read(fd.as_raw_fd(), buf[got..].as_mut_ptr().cast(), buf.len() - got) };
        match n {
            0 => break,
            n if n > 0 => got += n as usize,
            _ => {
                let e = io::Error::last_os_error();
                if e.kind() != io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
        }
    }
    Ok(got)
}

/// A pidfd for `pid` (readable once it exits), if the kernel has them. When
/// it has not, the run loops wake every 10 ms to check the shell instead.
pub fn pidfd_open(pid: libc::pid_t) -> Option<OwnedFd> {
    // SAFETY: plain syscall; on success it returns a new file descriptor.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd < 0 {
        return None;
    }
    // SAFETY: `fd` is a fresh descriptor we own.
    Some(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}
