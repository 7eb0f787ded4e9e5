//! `strict`'s namespaces: mount, PID, UTS, IPC and network, made once per
//! plan (making them costs milliseconds; entering them a few system calls),
//! each RUN started inside them.
//!
//! At [`Namespaces::new`] tissvm forks an *init* into new namespaces. The
//! init builds the file-system view ([`super::mounts`]), brings loopback up
//! (the network namespace's only interface, so a test server on 127.0.0.1
//! still works), says it is ready, and then waits on a pipe. It is PID 1 of
//! the sandbox's PID namespace, so every orphan of a RUN (`setsid`, a double
//! fork, a process that moved itself to another cgroup) becomes its child:
//! after each RUN, tissvm asks it to kill every process of the namespace
//! ([`Namespaces::sweep`]), and it answers once none is left. When tissvm
//! exits, however it exits, the pipe closes, the init sweeps and exits, and
//! the kernel ends whatever is still in the namespace.
//!
//! A RUN's first process starts in the PID namespace (tissvm's thread
//! points its children there for the one `clone`, [`Namespaces::children_in`])
//! and joins the others itself before `exec` ([`Namespaces::enter`]).
//! As an ordinary user the init is made in a user namespace of its own too
//! (the user's uid and gid mapped to themselves), which gives it, and each
//! RUN's child that joins it, the capabilities the rest needs; such a child
//! cannot be started in the PID namespace by tissvm (entering one needs
//! `CAP_SYS_ADMIN` where tissvm is), so it joins it for its children and
//! starts the RUN as tissvm's child there (`clone(CLONE_PARENT)`,
//! `spawn.rs`).

use std::collections::HashSet;
use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::mounts::{self, Step};
use super::reaper;
use crate::spawn::{pipe, read_full};

/// The namespaces of one plan's RUNs, held by descriptors, and their init.
#[derive(Debug)]
pub struct Namespaces {
    init: libc::pid_t,
    /// Requests to the init ([`Namespaces::sweep`]); closing it ends it.
    requests: Option<OwnedFd>,
    replies: OwnedFd,
    /// One request at a time; the host's sockets covered in the view.
    asking: Mutex<HashSet<mounts::Socket>>,
    /// The workspace and the private `TMPDIR`, canonical: sockets there are
    /// the RUN's own.
    writable: Vec<PathBuf>,
    /// Joined by each RUN's child, in this order (the user namespace first:
    /// it gives the rights to join the others; the mount namespace last: it
    /// changes the root and the working directory).
    joined: Vec<(OwnedFd, libc::c_int)>,
    /// Made by an ordinary user, in a user namespace of its own: tissvm
    /// cannot point its children at the PID namespace, the child does.
    user: bool,
    pid: OwnedFd,
    /// The PID namespace tissvm's own children belong in.
    own_pid: OwnedFd,
    /// The directory the view was built in (empty on the host).
    _staging: tempfile::TempDir,
}

impl Namespaces {
    /// Forks the init, has it build the view with `writable` (the
    /// workspace and the private `TMPDIR`) the only writable places, and
    /// waits until it is ready, `secrets` covered and `records` read-only
    /// ([`mounts::plan`]). The error names what failed.
    pub fn new(writable: &[&Path], secrets: &[PathBuf], records: &[PathBuf]) -> Result<Namespaces, String> {
        Namespaces::with_sockets(writable, secrets, records, mounts::reachable_sockets::<PathBuf>)
    }

    /// [`Namespaces::new`], the host's sockets listed by `sockets` (a test
    /// removes one between the list and the view).
    fn with_sockets(
        writable: &[&Path],
        secrets: &[PathBuf],
        records: &[PathBuf],
        sockets: impl FnOnce(&[PathBuf]) -> Vec<mounts::Socket>,
    ) -> Result<Namespaces, String> {
        let fail = |what: &str, e: io::Error| format!("{what}: {e}");
        let staging = tempfile::Builder::new()
            .prefix("tissvm-root-")
            .tempdir()
            .map_err(|e| fail("a staging directory for the sandbox's root", e))?;
        let canonical = |p: &Path| std::fs::canonicalize(p).map_err(|e| fail(&p.display().to_string(), e));
        let root = canonical(staging.path())?;
        let writable = writable.iter().map(|p| canonical(p)).collect::<Result<Vec<_>, _>>()?;
        let sockets = sockets(&writable);
        let secrets = mounts::coverable(secrets, &writable);
        let records = mounts::records_in(records, &writable);
        let steps = mounts::plan(
            &root,
            &writable.iter().map(|p| p.as_path()).collect::<Vec<_>>(),
            &sockets,
            &secrets,
            &records,
        )
        .map_err(|e| fail("the sandbox's file-system view", e))?;
        let (requests_r, requests_w) = pipe().map_err(|e| fail("pipe", e))?;
        let (replies_r, replies_w) = pipe().map_err(|e| fail("pipe", e))?;
        let null = CString::new("/dev/null").expect("no NUL");
        // SAFETY: plain system calls.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        // As an ordinary user, a user namespace of its own gives the init
        // (and each RUN that joins it) the capabilities the rest needs.
        let user = uid != 0;
        let init = Init {
            steps: &steps,
            requests: requests_r.as_raw_fd(),
            replies: replies_w.as_raw_fd(),
            null: &null,
            wait_for_maps: user,
        };
        let flags = libc::CLONE_NEWNS
            | libc::CLONE_NEWPID
            | libc::CLONE_NEWUTS
            | libc::CLONE_NEWIPC
            | libc::CLONE_NEWNET
            | if user { libc::CLONE_NEWUSER } else { 0 }
            | libc::SIGCHLD;
        let pid = reaper::claimed(|| {
            // SAFETY: without CLONE_VM the child runs on its own copy of
            // this process; it only runs `Init::run`, which never returns.
            let pid = unsafe { libc::syscall(libc::SYS_clone, flags as libc::c_ulong, 0, 0, 0, 0) };
            match pid {
                0 => unsafe { init.run() },
                p if p < 0 => Err(io::Error::last_os_error()),
                p => Ok((p as libc::pid_t, p as libc::pid_t)),
            }
        })
        .map_err(|e| {
            if user {
                format!(
                    "clone(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWUTS | CLONE_NEWIPC | \
                     CLONE_NEWNET) failed: {e}; as an ordinary user `strict` needs unprivileged user namespaces \
                     (`kernel.unprivileged_userns_clone`, `user.max_user_namespaces` > 0, no AppArmor \
                     `restrict_unprivileged_userns`), or tissvm run as root"
                )
            } else {
                format!(
                    "clone(CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET) failed: {e}; \
                     a kernel with namespaces (CONFIG_NAMESPACES)"
                )
            }
        })?;
        drop((requests_r, replies_w));
        // The namespaces are held from the start: an ordinary user's init
        // is dumpable (its `ns` files open to tissvm) only until mapped.
        let open = |name: &str| -> Result<OwnedFd, String> {
            std::fs::File::open(format!("/proc/{name}")).map(Into::into).map_err(|e| fail(name, e))
        };
        let opened = (|| {
            if user {
                map_user(pid, uid, gid, &replies_r)
                    .map_err(|e| format!("the sandbox's user namespace: {e}"))?;
            }
            let mut joined = Vec::new();
            if user {
                joined.push((open(&format!("{pid}/ns/user"))?, libc::CLONE_NEWUSER));
            }
            for (name, kind) in [
                ("uts", libc::CLONE_NEWUTS),
                ("ipc", libc::CLONE_NEWIPC),
                ("net", libc::CLONE_NEWNET),
                ("mnt", libc::CLONE_NEWNS),
            ] {
                joined.push((open(&format!("{pid}/ns/{name}"))?, kind));
            }
            let held = (joined, open(&format!("{pid}/ns/pid"))?, open("self/ns/pid")?);
            // SAFETY: a one-byte write from a valid buffer.
            if user && unsafe { libc::write(requests_w.as_raw_fd(), b"g".as_ptr().cast(), 1) } != 1 {
                return Err(fail("the sandbox's init", io::Error::last_os_error()));
            }
            Ok::<_, String>(held)
        })();
        let (joined, pid_ns, own_pid) = match opened {
            Ok(opened) => opened,
            Err(e) => {
                // The end of its pipe ends the init.
                drop(requests_w);
                reap(pid);
                return Err(e);
            }
        };
        let mut ready = [0u8; 8];
        let got = read_full(&replies_r, &mut ready).ok();
        let errno = i32::from_ne_bytes(ready[..4].try_into().expect("4 bytes"));
        let step = i32::from_ne_bytes(ready[4..].try_into().expect("4 bytes"));
        if got != Some(8) || errno != 0 {
            reap(pid);
            let what = usize::try_from(step)
                .ok()
                .and_then(|s| steps.get(s))
                .map_or_else(|| "bringing loopback up".to_string(), Step::describe);
            return Err(if got == Some(8) {
                format!("the sandbox's init could not {what}: {}", io::Error::from_raw_os_error(errno))
            } else {
                "the sandbox's init ended before it was ready".to_string()
            });
        }
        Ok(Namespaces {
            init: pid,
            requests: Some(requests_w),
            replies: replies_r,
            asking: Mutex::new(sockets.into_iter().collect()),
            writable,
            joined,
            user,
            pid: pid_ns,
            own_pid,
            _staging: staging,
        })
    }

    /// Whether a RUN's child joins the PID namespace itself (an ordinary
    /// user's sandbox, [`Namespaces::enter`]) and so must start the RUN as
    /// a process of tissvm's in it (`spawn.rs`), rather than tissvm starting
    /// it there ([`Namespaces::children_in`]).
    pub fn child_joins_pid_namespace(&self) -> bool {
        self.user
    }

    /// Runs `clone` (which starts a RUN's first process) with this thread's
    /// children going into the sandbox's PID namespace, and puts the thread
    /// back after. An error of the way back is returned all the same.
    pub fn children_in<T>(&self, clone: impl FnOnce() -> io::Result<T>) -> io::Result<T> {
        setns(self.pid.as_raw_fd(), libc::CLONE_NEWPID)?;
        let started = clone();
        setns(self.own_pid.as_raw_fd(), libc::CLONE_NEWPID)?;
        started
    }

    /// In a RUN's child before `exec`: joins the UTS, IPC, network and mount
    /// namespaces (the root and working directory are then the view's
    /// `/`). Plain system calls.
    pub fn enter(&self) -> io::Result<()> {
        for (fd, kind) in &self.joined {
            setns(fd.as_raw_fd(), *kind)?;
        }
        if self.user {
            // For its children only: the RUN is started by `spawn.rs`.
            setns(self.pid.as_raw_fd(), libc::CLONE_NEWPID)?;
        }
        Ok(())
    }

    /// Kills every process left in the PID namespace but its init, and
    /// returns once the init has reaped them all (one round trip).
    pub fn sweep(&self) -> io::Result<()> {
        let _one = self.asking.lock().unwrap_or_else(|e| e.into_inner());
        self.ask(b"k").map(drop)
    }

    /// Before a RUN: covers each path-named socket the host has bound since
    /// the view was built (as the view covers those bound before), so that
    /// no service that started meanwhile is in the RUN's reach. A socket
    /// that cannot be covered refuses the RUN. One read of
    /// `/proc/net/unix`; a round trip to the init per new socket.
    pub fn cover_new_sockets(&self) -> io::Result<()> {
        let mut covered = self.asking.lock().unwrap_or_else(|e| e.into_inner());
        for found in mounts::reachable_sockets(&self.writable) {
            if covered.contains(&found) {
                continue;
            }
            let socket = &found.0;
            let path = socket.as_os_str().as_bytes();
            if path.len() >= PATH_MAX {
                return Err(io::Error::other(format!(
                    "{}: a socket's path too long to cover",
                    socket.display()
                )));
            }
            let request = [&b"c"[..], &(path.len() as u32).to_ne_bytes(), path].concat();
            // A socket gone meanwhile needs no cover.
            match self.ask(&request)? {
                0 | libc::ENOENT => {}
                errno => {
                    return Err(io::Error::other(format!(
                        "cannot cover the socket {} in the sandbox's view: {}",
                        socket.display(),
                        io::Error::from_raw_os_error(errno)
                    )));
                }
            }
            covered.insert(found);
        }
        Ok(())
    }

    /// Sends `request` to the init and returns its one-byte answer (an
    /// errno, or 0).
    fn ask(&self, request: &[u8]) -> io::Result<i32> {
        let requests = self.requests.as_ref().ok_or_else(|| io::Error::from_raw_os_error(libc::EPIPE))?;
        // A request may be longer than a pipe takes at once.
        let mut sent = 0;
        while sent < request.len() {
            // SAFETY: a write from the unsent part of a valid buffer.
            let n = unsafe {
                libc::write(requests.as_raw_fd(), request[sent..].as_ptr().cast(), request.len() - sent)
            };
            match n {
                n if n > 0 => sent += n as usize,
                _ if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted => {}
                _ => return Err(io::Error::last_os_error()),
            }
        }
        let mut answer = [0u8; 1];
        match read_full(&self.replies, &mut answer)? {
            1 => Ok(i32::from(answer[0])),
            _ => Err(io::Error::other("the sandbox's init has ended")),
        }
    }
}

impl Drop for Namespaces {
    fn drop(&mut self) {
        // The init sweeps and exits at the end of its pipe.
        self.requests = None;
        reap(self.init);
    }
}

/// Maps the user's own uid and gid into the init's user namespace (the RUN
/// sees and makes files as itself).
fn map_user(pid: libc::pid_t, uid: libc::uid_t, gid: libc::gid_t, replies: &OwnedFd) -> io::Result<()> {
    // The init says when its files can be written.
    let mut dumpable = [0u8; 1];
    if read_full(replies, &mut dumpable)? != 1 {
        return Err(io::Error::other("the init ended before its ids were mapped"));
    }
    std::fs::write(format!("/proc/{pid}/setgroups"), "deny")?;
    std::fs::write(format!("/proc/{pid}/uid_map"), format!("{uid} {uid} 1"))?;
    std::fs::write(format!("/proc/{pid}/gid_map"), format!("{gid} {gid} 1"))
}

/// Waits for the init to exit, and forgets it.
fn reap(pid: libc::pid_t) {
    // SAFETY: our own (claimed) child.
    while unsafe { libc::waitpid(pid, std::ptr::null_mut(), 0) } < 0
        && io::Error::last_os_error().raw_os_error() == Some(libc::EINTR)
    {}
    reaper::release(pid);
}

fn setns(fd: RawFd, kind: libc::c_int) -> io::Result<()> {
    // SAFETY: a plain system call on a namespace's descriptor.
    if unsafe { libc::setns(fd, kind) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The longest path a cover request carries (`PATH_MAX`).
const PATH_MAX: usize = 4096;

/// What the init uses, made before the fork.
struct Init<'a> {
    steps: &'a [Step],
    requests: RawFd,
    replies: RawFd,
    null: &'a CString,
    /// In a new user namespace: wait for tissvm to map the user's ids.
    wait_for_maps: bool,
}

impl Init<'_> {
    /// The init's whole life: plain system calls, no allocation (it was
    /// forked from a process with threads).
    unsafe fn run(&self) -> ! {
        // SAFETY: plain system calls on this process's own state.
        unsafe {
            let mut all: libc::sigset_t = std::mem::zeroed();
            libc::sigfillset(&mut all);
            libc::sigprocmask(libc::SIG_SETMASK, &all, std::ptr::null_mut());
            self.close_others();
            if self.wait_for_maps {
                // tissvm is not dumpable (its memory holds the key), and
                // neither is this copy of it, so its /proc files are
                // root's: tissvm could not write the maps. Dumpable only
                // until they are written, before any RUN exists.
                libc::prctl(libc::PR_SET_DUMPABLE, 1, 0, 0, 0);
                let mut go = [0u8; 1];
                libc::write(self.replies, b"m".as_ptr().cast(), 1);
                if libc::read(self.requests, go.as_mut_ptr().cast(), 1) != 1 {
                    libc::_exit(1);
                }
                libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
            }
            let (errno, step) = match self.build() {
                Ok(()) => (0, -1),
                Err((step, e)) => (e.raw_os_error().unwrap_or(libc::EPERM), step),
            };
            let mut ready = [0u8; 8];
            ready[..4].copy_from_slice(&errno.to_ne_bytes());
            ready[4..].copy_from_slice(&step.to_ne_bytes());
            libc::write(self.replies, ready.as_ptr().cast(), 8);
            if errno != 0 {
                libc::_exit(1);
            }
            let mut request = [0u8; 1];
            let mut path = [0u8; PATH_MAX + 1];
            loop {
                let n = libc::read(self.requests, request.as_mut_ptr().cast(), 1);
                if n < 0 && io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
                    continue;
                }
                let answer = match (n, request[0]) {
                    (1, b'c') => self.cover(&mut path),
                    (1, _) => {
                        sweep_namespace();
                        0
                    }
                    _ => {
                        sweep_namespace();
                        libc::_exit(0)
                    }
                };
                libc::write(self.replies, [answer as u8].as_ptr().cast(), 1);
            }
        }
    }

    /// In the init: a `c` request's path (its length, then its bytes) read
    /// into `path`, and `/dev/null` bound over it; the errno, or 0.
    unsafe fn cover(&self, path: &mut [u8; PATH_MAX + 1]) -> i32 {
        let mut length = [0u8; 4];
        if read_full(&self.requests, &mut length).ok() != Some(length.len()) {
            return libc::EIO;
        }
        let length = u32::from_ne_bytes(length) as usize;
        if length >= PATH_MAX || read_full(&self.requests, &mut path[..length]).ok() != Some(length) {
            return libc::EIO;
        }
        path[length] = 0;
        // SAFETY: a NUL-terminated path and `/dev/null`.
        unsafe {
            if libc::mount(
                self.null.as_ptr(),
                path.as_ptr().cast(),
                std::ptr::null(),
                libc::MS_BIND,
                std::ptr::null(),
            ) == 0
            {
                0
            } else {
                *libc::__errno_location()
            }
        }
    }

    /// Closes every descriptor but the two pipes, and points the standard
    /// streams at `/dev/null` (nothing of tissvm's stays open here: a lock,
    /// a report file, the other end of a pipe someone waits on).
    unsafe fn close_others(&self) {
        let (low, high) = (self.requests.min(self.replies), self.requests.max(self.replies));
        for (first, last) in [(0, low - 1), (low + 1, high - 1), (high + 1, libc::c_int::MAX)] {
            if first <= last {
                // SAFETY: a plain system call.
                unsafe {
                    libc::syscall(libc::SYS_close_range, first as libc::c_uint, last as libc::c_uint, 0)
                };
            }
        }
        // SAFETY: plain system calls; 0, 1 and 2 are free now.
        unsafe {
            let null = libc::open(self.null.as_ptr(), libc::O_RDWR);
            if null >= 0 {
                for fd in 0..3 {
                    if fd != null {
                        libc::dup2(null, fd);
                    }
                }
                if null > 2 {
                    libc::close(null);
                }
            }
        }
    }

    /// The view, then loopback; the error says at which step (-1: loopback).
    unsafe fn build(&self) -> Result<(), (i32, io::Error)> {
        for (index, step) in self.steps.iter().enumerate() {
            // SAFETY: each step is plain system calls on C strings.
            unsafe { run_step(step) }.map_err(|e| (index as i32, e))?;
        }
        loopback_up().map_err(|e| (-1, e))
    }
}

/// One step of the view ([`mounts::plan`]).
unsafe fn run_step(step: &Step) -> io::Result<()> {
    let ptr = |c: &Option<CString>| c.as_ref().map_or(std::ptr::null(), |c| c.as_ptr());
    let check = |r: libc::c_long| if r < 0 { Err(io::Error::last_os_error()) } else { Ok(()) };
    // SAFETY: NUL-terminated strings and valid structures.
    unsafe {
        match step {
            Step::Mount { source, target, fstype, flags, data } => {
                check(libc::mount(ptr(source), target.as_ptr(), ptr(fstype), *flags, ptr(data).cast())
                    as libc::c_long)
            }
            Step::SetAttr { target, set, recursive } => {
                let attr = MountAttr { attr_set: *set, attr_clr: 0, propagation: 0, userns_fd: 0 };
                let flags = if *recursive { libc::AT_RECURSIVE as libc::c_uint } else { 0 };
                check(libc::syscall(
                    libc::SYS_mount_setattr,
                    libc::AT_FDCWD,
                    target.as_ptr(),
                    flags,
                    &raw const attr,
                    size_of::<MountAttr>(),
                ))
            }
            Step::Mkdir(path) => {
                if libc::mkdir(path.as_ptr(), 0o755) == 0 || *libc::__errno_location() == libc::EEXIST {
                    Ok(())
                } else {
                    Err(io::Error::last_os_error())
                }
            }
            Step::Touch(path) => {
                let fd = libc::open(path.as_ptr(), libc::O_CREAT | libc::O_WRONLY | libc::O_CLOEXEC, 0o644);
                check(fd as libc::c_long)?;
                libc::close(fd);
                Ok(())
            }
            Step::Symlink { to, link } => check(libc::symlink(to.as_ptr(), link.as_ptr()) as libc::c_long),
            Step::Cover(socket) => {
                let null = c"/dev/null".as_ptr();
                let flags = libc::MS_BIND;
                if libc::mount(null, socket.as_ptr(), std::ptr::null(), flags, std::ptr::null()) == 0
                    || *libc::__errno_location() == libc::ENOENT
                {
                    Ok(())
                } else {
                    Err(io::Error::last_os_error())
                }
            }
            Step::Pivot(root) => {
                let dot = c".".as_ptr();
                check(libc::chdir(root.as_ptr()) as libc::c_long)?;
                // The old root ends up beneath the new one, then detached.
                check(libc::syscall(libc::SYS_pivot_root, dot, dot))?;
                check(libc::umount2(dot, libc::MNT_DETACH) as libc::c_long)?;
                check(libc::chdir(c"/".as_ptr()) as libc::c_long)
            }
        }
    }
}

/// `struct mount_attr` of `linux/mount.h`.
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

/// In the init, as PID 1: kills every other process of the namespace and
/// reaps until none is left.
unsafe fn sweep_namespace() {
    // SAFETY: plain system calls; -1 spares the init itself.
    unsafe {
        libc::kill(-1, libc::SIGKILL);
        loop {
            if libc::waitpid(-1, std::ptr::null_mut(), 0) < 0 && *libc::__errno_location() != libc::EINTR {
                break;
            }
        }
    }
}

/// `ip link set lo up`, with the `SIOCSIFFLAGS` ioctl.
fn loopback_up() -> io::Result<()> {
    // SAFETY: plain syscalls on a socket we own and close; `request` is a
    // valid, zero-initialised ifreq naming `lo`.
    unsafe {
        let socket = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        if socket < 0 {
            return Err(io::Error::last_os_error());
        }
        let mut request: libc::ifreq = std::mem::zeroed();
        for (to, from) in request.ifr_name.iter_mut().zip(b"lo\0") {
            *to = *from as libc::c_char;
        }
        let mut result = libc::ioctl(socket, libc::SIOCGIFFLAGS, &mut request);
        if result == 0 {
            request.ifr_ifru.ifru_flags |= libc::IFF_UP as libc::c_short;
            result = libc::ioctl(socket, libc::SIOCSIFFLAGS, &request);
        }
        let error = io::Error::last_os_error();
        libc::close(socket);
        if result == 0 { Ok(()) } else { Err(error) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A socket the host listed, removed before the init covers it (another
    /// process's service stopping meanwhile), does not make `strict` refuse:
    /// nothing is reachable at its path.
    #[test]
    fn a_socket_gone_before_the_view_is_built_needs_no_cover() {
        // Outside the directories shown empty (`/tmp` is one): Cargo's
        // target directory, or for a checkout beneath `/tmp` another place.
        let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_default();
        let places = [Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"), home, "/var/cache".into()];
        let outside = places
            .iter()
            .filter(|place| {
                std::fs::canonicalize(place)
                    .is_ok_and(|p| !mounts::hidden_dirs().iter().any(|h| p.starts_with(h)))
            })
            .find_map(|place| tempfile::Builder::new().prefix(".tiss-socket-").tempdir_in(place).ok())
            .expect("a directory outside /tmp");
        let workspace = tempfile::tempdir().unwrap();
        let path = outside.path().join("service.sock");
        let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
        let built = Namespaces::with_sockets(&[workspace.path()], &[], &[], |writable| {
            let listed = mounts::reachable_sockets(writable);
            let canonical = std::fs::canonicalize(&path).unwrap();
            assert!(listed.iter().any(|(s, _)| *s == canonical), "{listed:?} lists {canonical:?}");
            drop(listener);
            std::fs::remove_file(&path).unwrap();
            listed
        });
        match built {
            Ok(namespaces) => drop(namespaces),
            Err(e) if std::env::var_os("CI").is_none() && !e.contains("could not cover") => {
                eprintln!("SKIPPED: this machine makes no namespaces: {e}");
            }
            Err(e) => panic!("{e}"),
        }
    }
}
