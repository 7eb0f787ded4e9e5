//! `strict`'s seccomp filter: the system calls none of the other mechanisms
//! cover, refused with `EPERM` (a tool sees an ordinary failure, not a
//! crash). With every capability dropped most of them would fail anyway;
//! the filter keeps them out of reach whatever a kernel bug or a missed
//! capability would allow, as bubblewrap's and codex's filters do.
//!
//! Refused: device nodes (`mknod` of a character or block device), mounts
//! and the new mount API, namespaces (`unshare`, `setns`, `clone` with a
//! `CLONE_NEW*` flag; `clone3`, whose flags a filter cannot read, gets
//! `ENOSYS` so libc falls back to `clone`), keyrings, `bpf`,
//! `perf_event_open`, `userfaultfd`, `io_uring` (its operations bypass the
//! filter), modules, `kexec`, `reboot`, swap, accounting, quotas,
//! `open_by_handle_at`, clocks, host names, the kernel log, port I/O, and
//! the `TIOCSTI`/`TIOCLINUX` ioctls that type into a terminal. A system
//! call of another architecture's ABI (x32, i386) kills the process.

use std::io;

const RET_KILL_PROCESS: u32 = 0x8000_0000;
const RET_ALLOW: u32 = 0x7fff_0000;
const RET_ERRNO: u32 = 0x0005_0000;

/// `offsetof(struct seccomp_data, …)`: the number, the architecture, the
/// low word of the arguments (little-endian).
const NR: u32 = 0;
const ARCH: u32 = 4;
const fn arg(n: u32) -> u32 {
    16 + 8 * n
}

#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: u32 = 0xc000_003e;
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: u32 = 0xc000_00b7;

/// Refused with `EPERM` whatever their arguments.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
const REFUSED: &[libc::c_long] = &[
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_chroot,
    libc::SYS_fsopen,
    libc::SYS_fsconfig,
    libc::SYS_fsmount,
    libc::SYS_fspick,
    libc::SYS_move_mount,
    libc::SYS_open_tree,
    libc::SYS_mount_setattr,
    libc::SYS_unshare,
    libc::SYS_setns,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_userfaultfd,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_reboot,
    libc::SYS_swapon,
    libc::SYS_swapoff,
    libc::SYS_acct,
    libc::SYS_quotactl,
    libc::SYS_open_by_handle_at,
    libc::SYS_settimeofday,
    libc::SYS_clock_settime,
    libc::SYS_clock_adjtime,
    libc::SYS_sethostname,
    libc::SYS_setdomainname,
    libc::SYS_syslog,
    libc::SYS_vhangup,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_iopl,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_ioperm,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_uselib,
];

/// Every `CLONE_NEW*` flag `clone` takes.
const NEW_NAMESPACES: u32 = (libc::CLONE_NEWNS
    | libc::CLONE_NEWUSER
    | libc::CLONE_NEWPID
    | libc::CLONE_NEWNET
    | libc::CLONE_NEWUTS
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWCGROUP) as u32;

/// The filter, built once per plan; each RUN's child installs it last.
#[derive(Debug)]
pub struct Filter(Vec<libc::sock_filter>);

impl Filter {
    /// Builds the filter and has the kernel take it on a throwaway thread
    /// (a thread's filter is its own); the error names what is missing.
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    pub fn new() -> Result<Filter, String> {
        let filter = Filter(program());
        let probe = Filter(filter.0.clone());
        std::thread::spawn(move || {
            // SAFETY: a plain system call on this thread's own state.
            unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) };
            probe.install()
        })
        .join()
        .map_err(|_| "seccomp: the probe thread panicked".to_string())?
        .map_err(|e| format!("seccomp filters (Linux ≥ 3.5 with CONFIG_SECCOMP_FILTER): {e}"))?;
        Ok(filter)
    }

    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    pub fn new() -> Result<Filter, String> {
        Err("seccomp: tissvm has a filter for x86-64 and aarch64 only".into())
    }

    /// Installs the filter on the calling thread (no new privileges must
    /// be set). Plain system calls: safe in a started child.
    pub fn install(&self) -> io::Result<()> {
        let program =
            libc::sock_fprog { len: self.0.len() as libc::c_ushort, filter: self.0.as_ptr().cast_mut() };
        // SAFETY: a valid program that outlives the call.
        let r = unsafe {
            libc::syscall(
                libc::SYS_seccomp,
                libc::SECCOMP_SET_MODE_FILTER,
                0 as libc::c_uint,
                &raw const program,
            )
        };
        if r != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

fn statement(code: u32, k: u32) -> libc::sock_filter {
    libc::sock_filter { code: code as u16, jt: 0, jf: 0, k }
}

fn jump(code: u32, k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    libc::sock_filter { code: code as u16, jt, jf, k }
}

/// The program, in classic BPF.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
fn program() -> Vec<libc::sock_filter> {
    let load = |offset| statement(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, offset);
    let equal = |k, jt, jf| jump(libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K, k, jt, jf);
    let ret = |action| statement(libc::BPF_RET | libc::BPF_K, action);
    let eperm = RET_ERRNO | libc::EPERM as u32;
    let nr = |n: libc::c_long| n as u32;
    let mut p = vec![load(ARCH), equal(AUDIT_ARCH, 1, 0), ret(RET_KILL_PROCESS), load(NR)];
    // The x32 ABI shares x86-64's architecture with bit 30 set.
    #[cfg(target_arch = "x86_64")]
    p.extend([jump(libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K, 0x4000_0000, 0, 1), ret(RET_KILL_PROCESS)]);
    for &call in REFUSED {
        p.extend([equal(nr(call), 0, 1), ret(eperm)]);
    }
    p.extend([equal(nr(libc::SYS_clone3), 0, 1), ret(RET_ERRNO | libc::ENOSYS as u32)]);
    // clone's flags are its first argument on both architectures.
    p.extend([
        equal(nr(libc::SYS_clone), 0, 4),
        load(arg(0)),
        jump(libc::BPF_JMP | libc::BPF_JSET | libc::BPF_K, NEW_NAMESPACES, 0, 1),
        ret(eperm),
        ret(RET_ALLOW),
    ]);
    let device = |call: libc::c_long, mode_arg| {
        [
            equal(nr(call), 0, 6),
            load(arg(mode_arg)),
            statement(libc::BPF_ALU | libc::BPF_AND | libc::BPF_K, libc::S_IFMT),
            equal(libc::S_IFCHR, 2, 0),
            equal(libc::S_IFBLK, 1, 0),
            ret(RET_ALLOW),
            ret(eperm),
        ]
    };
    #[cfg(target_arch = "x86_64")]
    p.extend(device(libc::SYS_mknod, 1));
    p.extend(device(libc::SYS_mknodat, 2));
    p.extend([
        equal(nr(libc::SYS_ioctl), 0, 5),
        load(arg(1)),
        equal(libc::TIOCSTI as u32, 2, 0),
        equal(libc::TIOCLINUX as u32, 1, 0),
        ret(RET_ALLOW),
        ret(eperm),
    ]);
    p.push(ret(RET_ALLOW));
    p
}
