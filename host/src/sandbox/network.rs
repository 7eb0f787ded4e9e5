//! `strict`'s network confinement: RUNs run in a network namespace whose
//! only interface is loopback (brought up, so a test server a RUN starts on
//! 127.0.0.1 still works). Nothing leaves it: TCP, UDP, DNS alike, whatever
//! the socket type. One namespace serves every RUN of a run (each RUN's
//! processes are gone before the next starts). Needs `CAP_SYS_ADMIN` (tissvm
//! running as root); [`Namespace::new`] finds out before the plan runs.

use std::io;
use std::os::fd::{AsFd, AsRawFd, OwnedFd, RawFd};

use rustix::thread::{LinkNameSpaceType, UnshareFlags, move_into_link_name_space, unshare_unsafe};

/// A network namespace with only loopback, up; made once per run of tissvm
/// (making one costs about a millisecond, entering one a system call).
#[derive(Debug)]
pub struct Namespace(OwnedFd);

impl Namespace {
    /// Makes the namespace on a throwaway thread (a thread's namespaces are
    /// its own: the process stays where it was) and keeps it by a
    /// descriptor. The error names what is missing.
    pub fn new() -> Result<Namespace, String> {
        let made = std::thread::spawn(|| -> io::Result<OwnedFd> {
            // SAFETY: only the namespace is unshared, not the file table.
            unsafe { unshare_unsafe(UnshareFlags::NEWNET) }?;
            loopback_up()?;
            Ok(std::fs::File::open("/proc/thread-self/ns/net")?.into())
        })
        .join()
        .map_err(|_| "the network namespace thread panicked".to_string())?;
        made.map(Namespace).map_err(|e| {
            format!(
                "unshare(CLONE_NEWNET) failed: {e}; a network namespace needs CAP_SYS_ADMIN (tissvm run as root) \
                 and a kernel with CONFIG_NET_NS"
            )
        })
    }

    /// The descriptor the forked child enters ([`enter`]).
    pub fn fd(&self) -> RawFd {
        self.0.as_raw_fd()
    }
}

/// Moves the calling (forked) process into the namespace `fd` refers to:
/// one system call.
pub fn enter(fd: RawFd) -> io::Result<()> {
    // SAFETY: `fd` is the namespace's descriptor, open for as long as the
    // sandbox that forked this child lives.
    let fd = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
    move_into_link_name_space(fd.as_fd(), Some(LinkNameSpaceType::Network))?;
    Ok(())
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
