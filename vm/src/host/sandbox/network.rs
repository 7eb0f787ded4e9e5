//! `strict`'s network confinement: each RUN gets a network namespace of its
//! own whose only interface is loopback (brought up, so a test server a RUN
//! starts on 127.0.0.1 still works). Nothing leaves it: TCP, UDP, DNS alike,
//! whatever the socket type. Needs `CAP_SYS_ADMIN` (tissvm running as root);
//! [`probe`] finds out before the plan runs.

use std::io;

use rustix::thread::{UnshareFlags, unshare_unsafe};

/// Whether network namespaces can be made here; the error names what is
/// missing.
pub fn probe() -> Result<(), String> {
    // A thread's namespaces are its own: unsharing on a throwaway thread
    // leaves the process as it was.
    std::thread::spawn(isolate)
        .join()
        .map_err(|_| "the network namespace probe thread panicked".to_string())?
        .map_err(|e| {
            format!(
                "unshare(CLONE_NEWNET) failed: {e}; a network namespace needs CAP_SYS_ADMIN (tissvm run as root) \
                 and a kernel with CONFIG_NET_NS"
            )
        })
}

/// Moves the calling thread (the forked child) into a new network
/// namespace and brings its loopback up. Plain system calls only.
pub fn isolate() -> io::Result<()> {
    // SAFETY: only the namespace is unshared, not the file table.
    unsafe { unshare_unsafe(UnshareFlags::NEWNET) }?;
    loopback_up()
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
