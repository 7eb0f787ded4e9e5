//! `strict` drops every capability before a RUN's `exec`: the bounding set
//! (so no `exec` of a setuid or root-owned program gives any back), the
//! ambient and inheritable sets, the effective and permitted ones, and locks
//! the securebits that would let root regain them (`SECBIT_NOROOT`). A RUN
//! running as root is then uid 0 with no privilege: no `mknod`, no
//! `CAP_DAC_OVERRIDE` past a file's mode, no `sethostname`, no `mount`, no
//! raw I/O.

use std::io;

/// Root gets no capabilities at `exec`, setuid changes keep none, ambient
/// ones cannot be raised; each locked.
const SECUREBITS: libc::c_int = libc::SECBIT_NOROOT
    | libc::SECBIT_NOROOT_LOCKED
    | libc::SECBIT_NO_SETUID_FIXUP
    | libc::SECBIT_NO_SETUID_FIXUP_LOCKED
    | libc::SECBIT_KEEP_CAPS_LOCKED
    | libc::SECBIT_NO_CAP_AMBIENT_RAISE
    | libc::SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;

/// `_LINUX_CAPABILITY_VERSION_3`.
const CAPABILITY_VERSION_3: u32 = 0x2008_0522;

#[repr(C)]
struct Header {
    version: u32,
    pid: libc::c_int,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct Data {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

/// In the started child, before `exec` (after everything that needs a
/// capability: joining the namespaces): drops them all. Plain system calls.
pub fn drop_all() -> io::Result<()> {
    let check = |r: libc::c_int| if r < 0 { Err(io::Error::last_os_error()) } else { Ok(()) };
    // SAFETY: plain system calls on this process's own credentials, with
    // valid structures.
    unsafe {
        check(libc::prctl(libc::PR_SET_SECUREBITS, SECUREBITS as libc::c_ulong, 0, 0, 0))?;
        // Until the first number the kernel does not know (EINVAL).
        for cap in 0..64 {
            if libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 {
                if *libc::__errno_location() == libc::EINVAL {
                    break;
                }
                return Err(io::Error::last_os_error());
            }
        }
        check(libc::prctl(libc::PR_CAP_AMBIENT, libc::PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0))?;
        let header = Header { version: CAPABILITY_VERSION_3, pid: 0 };
        let data = [Data { effective: 0, permitted: 0, inheritable: 0 }; 2];
        check(libc::syscall(libc::SYS_capset, &raw const header, data.as_ptr()) as libc::c_int)
    }
}
