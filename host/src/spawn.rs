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
//!
//! The child shares this process's memory (`CLONE_VM`, as `posix_spawn`'s
//! does) on a stack of its own wherever it can: copying the page tables and
//! then taking a copy-on-write fault for each page either side touches
//! cost `standard` more than anything else it did per RUN. glibc has no
//! `clone3` wrapper, so on x86-64 a few lines of assembly start the child on
//! its stack ([`clone3_vm`]); elsewhere, on a kernel without `clone3` (before
//! 5.3), and for a child that takes something from memory before `exec`
//! (`strict`'s Landlock ruleset, which `restrict_self` consumes), the child
//! runs on its own copy of memory (`fork` semantics) instead, joining every
//! cgroup itself where there is no `clone3`. Under `none` there is no cgroup
//! to start in, and glibc's `clone` shares the memory on every architecture.
//! A child that shares the memory only reads what was built before the clone
//! and makes plain system calls (the parent may have threads): no
//! allocation, no lock, no handler of tissvm's (signals stay blocked across
//! the clone, and every handler is back at its default before the child
//! unblocks them: by the kernel with `CLONE_CLEAR_SIGHAND` on x86-64, else
//! by the child, one `sigaction` per signal).
//!
//! A program that cannot be executed is reported with its `errno`, which the
//! child stores in the memory it shares, or (on its own copy) writes into a
//! close-on-exec pipe, before `_exit(127)`.

use std::ffi::{CString, c_char};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicI32, Ordering};

use crate::sandbox::Confined;
use crate::watchdog::{self, Table};

/// `CLONE_INTO_CGROUP` of `linux/sched.h`; libc's constant is an `int` and
/// loses the bit (its own deprecation note says so).
const CLONE_INTO_CGROUP: u64 = 0x2_0000_0000;

/// `CLONE_CLEAR_SIGHAND` of `linux/sched.h` (Linux 5.5): the child starts
/// with every signal this process handles back at its default, which spares
/// a child that shares the memory one `sigaction` per signal (64 system
/// calls, the largest part of what it did before `exec`).
#[cfg(target_arch = "x86_64")]
const CLONE_CLEAR_SIGHAND: u64 = 0x1_0000_0000;

/// Whether `CLONE_CLEAR_SIGHAND` is asked for: until a kernel before 5.5
/// refuses it (EINVAL, and the same clone without it starts).
#[cfg(target_arch = "x86_64")]
pub(crate) static CLEARS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

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
    cwd: ChildCwd,
}

/// Where the child is to run: a directory by its path, or one held open.
#[derive(Debug, Clone, Copy)]
pub enum Cwd<'a> {
    Path(&'a Path),
    /// Entered with `fchdir`: no path lookup, nothing to redirect.
    Descriptor(BorrowedFd<'a>),
}

/// [`Cwd`] as the child takes it. The descriptor is the caller's, open
/// until [`start`] returns, by which time the child has exec'd.
#[derive(Debug)]
enum ChildCwd {
    Path(CString),
    Descriptor(RawFd),
}

impl Launch {
    /// `program` with `args` in `cwd` with exactly `env`; the program is
    /// looked up in `env`'s `PATH` as `execvp` would. A NUL byte anywhere
    /// is an `InvalidInput` error.
    pub fn new(program: &str, args: &[&str], env: &[(String, String)], cwd: Cwd<'_>) -> io::Result<Launch> {
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
            cwd: match cwd {
                Cwd::Path(path) => ChildCwd::Path(c(path.as_os_str().as_bytes())?),
                Cwd::Descriptor(fd) => ChildCwd::Descriptor(fd.as_raw_fd()),
            },
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
/// the child registers its group in the `watchdog`'s table before it execs.
/// The child is not reaped here unless it failed to execute.
pub fn start(launch: &Launch, confined: &mut Confined<'_>, watchdog: &'static Table) -> io::Result<Started> {
    let shared = !confined.confines() || cfg!(target_arch = "x86_64") && confined.may_share_memory();
    match start_child(launch, confined, shared, watchdog)? {
        Some(started) => Ok(started),
        // No `clone3` here: a child on its own copy of memory.
        None => start_child(launch, confined, false, watchdog)?
            .ok_or_else(|| io::Error::from_raw_os_error(libc::ENOSYS)),
    }
}

/// [`start`], the child sharing this process's memory or not; `None` if
/// it was to share it and the kernel has no `clone3`.
fn start_child(
    launch: &Launch,
    confined: &mut Confined<'_>,
    shared: bool,
    watchdog: &'static Table,
) -> io::Result<Option<Started>> {
    let (out_r, out_w) = pipe()?;
    let (err_r, err_w) = pipe()?;
    // A child that shares the memory reports a failure there; one on its
    // own copy through a pipe, whose end of file (at `exec`) says it
    // started. The read of that pipe would wait for the exec to finish
    // closing descriptors, well after CLONE_VFORK let this thread go.
    let fail = if shared { None } else { Some(pipe()?) };
    // An ordinary user's `strict` child starts the RUN itself, and says
    // which pid it has here.
    let relay = match confined.namespaces() {
        Some(namespaces) if namespaces.child_joins_pid_namespace() => Some(pipe()?),
        _ => None,
    };
    let null = dev_null()?;
    let argv = pointers(&launch.argv);
    let envp = pointers(&launch.envp);
    let child = Child {
        launch,
        argv: &argv,
        envp: &envp,
        stdio: [null.as_raw_fd(), out_w.as_raw_fd(), err_w.as_raw_fd()],
        fail: fail.as_ref().map(|(_, w)| w.as_raw_fd()),
        relay: relay.as_ref().map(|(_, w)| w.as_raw_fd()),
        errno: AtomicI32::new(0),
        watchdog,
    };
    let cloned = if confined.confines() {
        clone_confined(&child, confined, shared)?
    } else {
        Some(clone_shared(&child, confined)?)
    };
    let Some((mut pid, mut pidfd)) = cloned else { return Ok(None) };
    if let Some((relay_r, relay_w)) = relay {
        drop(relay_w);
        let mut started = [0u8; 4];
        let got = read_full(&relay_r, &mut started)?;
        // SAFETY: our own child, which exits once it has started the RUN
        // (or failed to: then its errno follows on the failure pipe); the
        // descriptor is the one the kernel made for it.
        unsafe {
            libc::waitpid(pid, std::ptr::null_mut(), 0);
            if pidfd >= 0 {
                libc::close(pidfd);
            }
        }
        pidfd = -1;
        if got == started.len() {
            pid = i32::from_ne_bytes(started);
        }
    }
    if confined.namespaces().is_some() {
        watchdog::register(watchdog, pid);
    }
    drop((out_w, err_w));
    let pidfd = if pidfd >= 0 {
        // SAFETY: the kernel made this descriptor for us.
        Some(unsafe { OwnedFd::from_raw_fd(pidfd) })
    } else {
        pidfd_open(pid)
    };
    let errno = match fail {
        // CLONE_VFORK: the child has exec'd or exited, and written its errno.
        None => child.errno.load(Ordering::SeqCst),
        Some((fail_r, fail_w)) => {
            drop(fail_w);
            let mut errno = [0u8; 4];
            if read_full(&fail_r, &mut errno)? == errno.len() { i32::from_ne_bytes(errno) } else { 0 }
        }
    };
    if errno != 0 {
        watchdog::unwatch(pid);
        let mut status = 0;
        // SAFETY: our own child, which has exited.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        return Err(io::Error::from_raw_os_error(errno));
    }
    Ok(Some(Started { pid, pidfd, stdout: out_r.into(), stderr: err_r.into() }))
}

/// The confined child: `clone3` into the RUN's v2 cgroup, sharing this
/// process's memory with `shared` ([`clone3_vm`]; `None` where there is no
/// `clone3`), else on its own copy of it (`fork` where there is no
/// `clone3`). Returns the pid and the pidfd (-1 if none).
fn clone_confined(
    child: &Child<'_>,
    confined: &mut Confined<'_>,
    shared: bool,
) -> io::Result<Option<(libc::pid_t, libc::c_int)>> {
    let into = confined.cgroup_dir();
    let mut pidfd: libc::c_int = -1;
    // SAFETY: an all-zero clone_args is valid; the fields set are checked by
    // the kernel.
    let mut args: libc::clone_args = unsafe { std::mem::zeroed() };
    args.flags = (libc::CLONE_VFORK | libc::CLONE_PIDFD) as u64 | into.map_or(0, |_| CLONE_INTO_CGROUP);
    args.pidfd = (&raw mut pidfd) as u64;
    args.exit_signal = libc::SIGCHLD as u64;
    args.cgroup = into.map_or(0, |fd| fd as u64);
    #[cfg(target_arch = "x86_64")]
    if shared {
        return Ok(clone3_shared(args, child, confined, true)?.map(|pid| (pid, pidfd)));
    }
    debug_assert!(!shared, "only x86-64 shares memory with a confined child");
    let namespaces = confined.namespaces();
    let mut clone = || {
        // SAFETY: without CLONE_VM the child has its own copy of this
        // process, so returning from the system call on this stack is as
        // after `fork`; the child only runs `Child::exec`, which never
        // returns.
        let mut pid =
            unsafe { libc::syscall(libc::SYS_clone3, &raw const args, size_of::<libc::clone_args>()) };
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
        Ok(pid as libc::pid_t)
    };
    let pid = match namespaces {
        // `strict`: the child starts in the sandbox's PID namespace (or, an
        // ordinary user's, starts the RUN there itself).
        Some(namespaces) if !namespaces.child_joins_pid_namespace() => namespaces.children_in(clone)?,
        _ => clone()?,
    };
    Ok(Some((pid, pidfd)))
}

/// The unconfined child (`none`): no cgroup to start in. On x86-64
/// [`clone3_shared`]; elsewhere, or without `clone3`, glibc's `clone`
/// (`CLONE_VM | CLONE_VFORK`, as `posix_spawn`'s) starts it sharing this
/// process's memory.
fn clone_shared(child: &Child<'_>, confined: &mut Confined<'_>) -> io::Result<(libc::pid_t, libc::c_int)> {
    let mut pidfd: libc::c_int = -1;
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: an all-zero clone_args is valid; the fields set are
        // checked by the kernel.
        let mut args: libc::clone_args = unsafe { std::mem::zeroed() };
        args.flags = (libc::CLONE_VFORK | libc::CLONE_PIDFD) as u64;
        args.pidfd = (&raw mut pidfd) as u64;
        args.exit_signal = libc::SIGCHLD as u64;
        if let Some(pid) = clone3_shared(args, child, confined, false)? {
            return Ok((pid, pidfd));
        }
    }
    let mut payload = Payload { child, confined, joined: false, cleared: false };
    let pid = on_child_stack(|base, size| {
        // The stack grows down from its (16-byte aligned) top.
        let top = base as usize + size;
        // SAFETY: the child runs `entry` on the stack given while this
        // thread waits (CLONE_VFORK); `payload` and `pidfd` outlive it.
        let pid = unsafe {
            libc::clone(
                entry,
                top as *mut libc::c_void,
                libc::CLONE_VM | libc::CLONE_VFORK | libc::CLONE_PIDFD | libc::SIGCHLD,
                (&raw mut payload).cast(),
                &raw mut pidfd,
            )
        };
        if pid < 0 { Err(io::Error::last_os_error()) } else { Ok(pid) }
    })?;
    Ok((pid, pidfd))
}

/// `clone3` of a child that shares this process's memory ([`clone3_vm`]),
/// with `args` (whose `pidfd` stays valid) plus `CLONE_VM` and, where the
/// kernel has it, `CLONE_CLEAR_SIGHAND`; `joined` as for [`Child::exec`].
/// `None` where there is no `clone3`.
#[cfg(target_arch = "x86_64")]
fn clone3_shared(
    mut args: libc::clone_args,
    child: &Child<'_>,
    confined: &mut Confined<'_>,
    joined: bool,
) -> io::Result<Option<libc::pid_t>> {
    args.flags |= libc::CLONE_VM as u64;
    let mut cleared = CLEARS.load(Ordering::Relaxed);
    loop {
        let mut payload = Payload { child, confined: &mut *confined, joined, cleared };
        let started = on_child_stack(|base, size| {
            let mut args = args;
            args.flags |= if cleared { CLONE_CLEAR_SIGHAND } else { 0 };
            args.stack = base as u64;
            args.stack_size = size as u64;
            // SAFETY: `entry` runs on the stack given while this thread
            // waits (CLONE_VFORK); `payload` and the pidfd outlive it.
            let pid = unsafe { clone3_vm(&args, entry, (&raw mut payload).cast()) };
            if pid < 0 { Err(io::Error::from_raw_os_error(-pid as i32)) } else { Ok(pid as libc::pid_t) }
        });
        match started {
            Err(e) if e.raw_os_error() == Some(libc::ENOSYS) => return Ok(None),
            // Perhaps a kernel without the flag: once more without it.
            Err(e) if cleared && e.raw_os_error() == Some(libc::EINVAL) => cleared = false,
            started => {
                // It was the flag (the retry started): never ask again.
                if started.is_ok() && !cleared && CLEARS.load(Ordering::Relaxed) {
                    CLEARS.store(false, Ordering::Relaxed);
                }
                return started.map(Some);
            }
        }
    }
}

/// What a child that shares this process's memory gets: the child, its
/// confinement, whether it starts in its v2 cgroup, and whether the kernel
/// has already put every handler back to the default.
struct Payload<'c, 'a, 's> {
    child: &'c Child<'a>,
    confined: &'c mut Confined<'s>,
    joined: bool,
    cleared: bool,
}

/// The first function of a child that shares this process's memory: every
/// handler back to the default unless the kernel did it (they are tissvm's,
/// and its memory is shared), then [`Child::exec`], which unblocks the
/// signals.
extern "C" fn entry(payload: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `payload` is a `Payload`, alive while the parent waits.
    let Payload { child, confined, joined, cleared } = unsafe { &mut *payload.cast::<Payload<'_, '_, '_>>() };
    // SAFETY: plain system calls; the handler table is this child's own.
    unsafe {
        for signal in (1..=libc::SIGRTMAX()).filter(|_| !*cleared) {
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
        child.exec(confined, *joined)
    }
}

/// Calls `clone` with a stack for the child (its base and size; the size
/// keeps the top 16-byte aligned) and every signal blocked, so that no
/// handler of tissvm's runs in a child that shares its memory.
fn on_child_stack(clone: impl FnOnce(*mut u8, usize) -> io::Result<libc::pid_t>) -> io::Result<libc::pid_t> {
    const SIZE: usize = 64 * 1024;
    // Not zeroed: the child writes before it reads. u128 for the alignment.
    let mut stack = Box::<[u128]>::new_uninit_slice(SIZE / size_of::<u128>());
    // SAFETY: all-zero sigsets are valid; the calls fill them.
    let (mut all, mut old): (libc::sigset_t, libc::sigset_t) =
        unsafe { (std::mem::zeroed(), std::mem::zeroed()) };
    // SAFETY: plain calls on valid sigsets.
    unsafe {
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old);
    }
    let started = clone(stack.as_mut_ptr().cast(), SIZE);
    // SAFETY: as above.
    unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut()) };
    started
}

/// `clone3` for a child that shares this process's memory: the child starts
/// on the stack `args` gives (the kernel sets its stack pointer to the top)
/// and calls `entry(payload)` there, which must never return. Returns the
/// child's pid to the parent, or `-errno`.
///
/// # Safety
/// `args` must have `CLONE_VM | CLONE_VFORK` and a stack the child can use
/// until it execs or exits; `payload` must stay valid until then.
#[cfg(target_arch = "x86_64")]
unsafe fn clone3_vm(
    args: &libc::clone_args,
    entry: extern "C" fn(*mut libc::c_void) -> libc::c_int,
    payload: *mut libc::c_void,
) -> i64 {
    let result: i64;
    // SAFETY: as glibc's clone3.S: the parent returns from the system call
    // with the pid; the child, on the new stack (16-byte aligned before the
    // call, as the ABI wants), clears the frame pointer and calls `entry`
    // with `payload` (r12 and r13 survive the system call, rcx and r11 do
    // not); `entry` execs or exits, and `ud2` marks the unreachable.
    unsafe {
        std::arch::asm!(
            "syscall",
            "test rax, rax",
            "jnz 2f",
            "xor ebp, ebp",
            "mov rdi, r12",
            "call r13",
            "ud2",
            "2:",
            inlateout("rax") libc::SYS_clone3 => result,
            in("rdi") args as *const libc::clone_args,
            in("rsi") size_of::<libc::clone_args>(),
            in("r12") payload,
            in("r13") entry,
            lateout("rcx") _,
            lateout("r11") _,
        );
    }
    result
}

/// What the child uses, all made before the clone.
struct Child<'a> {
    launch: &'a Launch,
    argv: &'a [*const c_char],
    envp: &'a [*const c_char],
    /// The descriptors to make 0, 1 and 2.
    stdio: [RawFd; 3],
    /// Where the errno of a failure goes: this pipe for a child on its own
    /// copy of memory, else [`Child::errno`].
    fail: Option<RawFd>,
    /// Where the child that starts the RUN in an ordinary user's PID
    /// namespace sends the RUN's pid ([`Child::relay`]).
    relay: Option<RawFd>,
    errno: AtomicI32,
    /// Where the child registers its group before it execs.
    watchdog: &'static Table,
}

impl Child<'_> {
    /// In the child: set up, confine, execute; on failure report the errno
    /// and exit 127. Plain system calls only, no allocation.
    unsafe fn exec(&self, confined: &mut Confined<'_>, joined: bool) -> ! {
        let errno = match unsafe { self.prepare(confined, joined) } {
            Ok(()) => {
                // Leading its group now: registered before any command of
                // the RUN runs, so a SIGKILL of tissvm from here on still
                // ends it (unregistered by the parent if the exec fails).
                // In `strict`'s PID namespace its own pid is not the one
                // tissvm sees: the parent registers it, and the init ends
                // the namespace should tissvm die before.
                if confined.namespaces().is_none() {
                    watchdog::register(self.watchdog, unsafe { libc::getpid() });
                }
                unsafe { self.execute() }
            }
            Err(e) => e.raw_os_error().unwrap_or(libc::EPERM),
        };
        // 0 would read as "started".
        let errno = if errno == 0 { libc::EPERM } else { errno };
        match self.fail {
            // SAFETY: a plain system call.
            Some(fd) => unsafe {
                libc::write(fd, errno.to_ne_bytes().as_ptr().cast(), 4);
            },
            None => self.errno.store(errno, Ordering::SeqCst),
        }
        // SAFETY: the child ends here.
        unsafe { libc::_exit(127) }
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
            confined.enter_namespaces()?;
            if let Some(relay) = self.relay {
                self.relay(relay)?;
            }
            match &self.launch.cwd {
                ChildCwd::Descriptor(fd) => check(libc::fchdir(*fd))?,
                ChildCwd::Path(path) => check(libc::chdir(path.as_ptr()))?,
            }
        }
        confined.in_child(joined)
    }

    /// In an ordinary user's `strict` sandbox, where this child has joined
    /// the PID namespace for its children only: starts the RUN's process
    /// there as tissvm's child (`CLONE_PARENT`), sends its pid (as tissvm
    /// sees it) down `relay` and exits; the new process goes on with the
    /// rest. Plain system calls, on this child's own copy of memory.
    unsafe fn relay(&self, relay: RawFd) -> io::Result<()> {
        // SAFETY: without CLONE_VM both go on, each on its own copy, as
        // after `fork`.
        let pid = unsafe {
            libc::syscall(libc::SYS_clone, (libc::CLONE_PARENT | libc::SIGCHLD) as libc::c_ulong, 0, 0, 0, 0)
        };
        match pid {
            0 => Ok(()),
            p if p < 0 => Err(io::Error::last_os_error()),
            // SAFETY: plain system calls; this child ends here.
            p => unsafe {
                libc::write(relay, (p as i32).to_ne_bytes().as_ptr().cast(), 4);
                libc::_exit(0)
            },
        }
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

/// `/dev/null`, opened once (close-on-exec) for every RUN's stdin.
fn dev_null() -> io::Result<&'static File> {
    static NULL: OnceLock<File> = OnceLock::new();
    if let Some(null) = NULL.get() {
        return Ok(null);
    }
    let null = File::options().read(true).write(true).open("/dev/null")?;
    Ok(NULL.get_or_init(|| null))
}

/// A close-on-exec pipe: (read end, write end).
pub(crate) fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: fresh descriptors we own.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Reads until `buf` is full or end of file; returns how much was read.
/// Plain system calls (the sandbox's init reads its requests with it).
pub(crate) fn read_full(fd: &impl AsRawFd, buf: &mut [u8]) -> io::Result<usize> {
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
