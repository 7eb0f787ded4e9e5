//! `strict`'s view of the file system, built once per plan in the mount
//! namespace of the sandbox's init ([`super::namespaces`]), as bubblewrap's
//! `--ro-bind / / --dev /dev --proc /proc --tmpfs` would:
//!
//! - the host's `/`, bound recursively, read-only, `nosuid`, `nodev`: a RUN
//!   running as root can `chmod`, `chown`, `touch` or `setxattr` nothing
//!   there (Landlock does not cover metadata; a read-only mount does);
//! - a fresh `/proc` of the sandbox's PID namespace, its `sys`,
//!   `sysrq-trigger` and the like read-only;
//! - a minimal `/dev`: `null`, `zero`, `full`, `random`, `urandom`, `tty`,
//!   a private `pts`; no disk, no other device;
//! - `/tmp`, `/var/tmp`, `/run` and `/dev/shm` empty and read-only, and each
//!   path-named unix socket elsewhere the host has bound (`/proc/net/unix`)
//!   covered, then and before each RUN (one removed meanwhile needs none):
//!   a service listening on a socket is out of reach (a network namespace
//!   does not cover path-named sockets, nor does Landlock up to ABI 7);
//! - the workspace and the private `TMPDIR` at their own paths, the only
//!   writable places, `nosuid`, `nodev`.
//!
//! The steps are made here, in the parent, as C strings; the init (a child
//! forked from a process with threads) only makes the system calls.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// Directories that hold the host's sockets and scratch files, shown empty.
const HIDDEN: [&str; 4] = ["/tmp", "/var/tmp", "/run", "/dev/shm"];

/// The devices a RUN may open.
const DEVICES: [&str; 6] = ["null", "zero", "full", "random", "urandom", "tty"];

/// Entries of `/proc` a root RUN could write to change the host.
const PROC_READ_ONLY: [&str; 6] = ["sys", "sysrq-trigger", "irq", "bus", "fs", "acpi"];

/// `mount_setattr` attributes (`linux/mount.h`).
pub const ATTR_RDONLY: u64 = 0x1;
pub const ATTR_NOSUID: u64 = 0x2;
pub const ATTR_NODEV: u64 = 0x4;
pub const ATTR_NOEXEC: u64 = 0x8;

/// One step of the view's construction.
#[derive(Debug)]
pub enum Step {
    Mount {
        source: Option<CString>,
        target: CString,
        fstype: Option<CString>,
        flags: libc::c_ulong,
        data: Option<CString>,
    },
    /// `mount_setattr`: attributes set on one mount, or a whole tree.
    SetAttr {
        target: CString,
        set: u64,
        recursive: bool,
    },
    /// A directory, if it is not there yet.
    Mkdir(CString),
    /// An empty file to bind a device onto.
    Touch(CString),
    Symlink {
        to: CString,
        link: CString,
    },
    /// `/dev/null` bound over a host socket; a socket removed since the
    /// host's list was read (`ENOENT`) needs no cover.
    Cover(CString),
    /// `pivot_root` into the staging directory, the old root detached.
    Pivot(CString),
}

impl Step {
    /// What the step does, for a refusal that names it.
    pub fn describe(&self) -> String {
        let text = |c: &CString| c.to_string_lossy().into_owned();
        match self {
            Step::Mount { source, target, fstype, .. } => format!(
                "mount {} on {}",
                fstype.as_ref().or(source.as_ref()).map_or_else(|| "(propagation)".into(), text),
                text(target)
            ),
            Step::SetAttr { target, .. } => format!("mount_setattr on {} (Linux ≥ 5.12)", text(target)),
            Step::Mkdir(path) => format!("mkdir {}", text(path)),
            Step::Touch(path) => format!("create {}", text(path)),
            Step::Symlink { link, .. } => format!("symlink {}", text(link)),
            Step::Cover(socket) => format!("cover the socket {}", text(socket)),
            Step::Pivot(root) => format!("pivot_root into {}", text(root)),
        }
    }
}

/// The steps that build the view in `staging` (an empty directory), with
/// `writable` (canonical paths) the only writable places, and `sockets`
/// ([`reachable_sockets`]) and `secrets` ([`coverable`]) covered, and
/// `records` ([`records_in`]) read-only: a file bound over itself can be
/// neither written, renamed nor removed (`EROFS`, `EBUSY`), nor linked to
/// from the writable mount it lies in (`EXDEV`).
pub fn plan(
    staging: &Path,
    writable: &[&Path],
    sockets: &[Socket],
    secrets: &[PathBuf],
    records: &[PathBuf],
) -> io::Result<Vec<Step>> {
    let c = |path: &Path| {
        CString::new(path.as_os_str().as_bytes())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte in a path"))
    };
    let inside = |path: &Path| staging.join(path.strip_prefix("/").unwrap_or(path));
    let text = |s: &str| CString::new(s).expect("no NUL in a constant");
    let mount = |source: Option<&str>, target: &Path, fstype: Option<&str>, flags, data: Option<&str>| {
        Ok::<_, io::Error>(Step::Mount {
            source: source.map(text),
            target: c(target)?,
            fstype: fstype.map(text),
            flags,
            data: data.map(text),
        })
    };
    let bind = |source: &Path, target: &Path, flags| {
        Ok::<_, io::Error>(Step::Mount {
            source: Some(c(source)?),
            target: c(target)?,
            fstype: None,
            flags: libc::MS_BIND | flags,
            data: None,
        })
    };
    let mut steps = vec![
        // Nothing done here reaches the host's mounts.
        mount(None, Path::new("/"), None, libc::MS_REC | libc::MS_SLAVE, None)?,
        bind(Path::new("/"), staging, libc::MS_REC)?,
        Step::SetAttr { target: c(staging)?, set: ATTR_RDONLY | ATTR_NOSUID | ATTR_NODEV, recursive: true },
    ];
    let proc = inside(Path::new("/proc"));
    let quiet = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
    steps.push(mount(Some("proc"), &proc, Some("proc"), quiet, None)?);
    for entry in PROC_READ_ONLY.iter().filter(|e| Path::new("/proc").join(e).exists()) {
        let target = proc.join(entry);
        steps.push(bind(&target, &target, libc::MS_REC)?);
        steps.push(Step::SetAttr {
            target: c(&target)?,
            set: ATTR_RDONLY | ATTR_NOSUID | ATTR_NODEV | ATTR_NOEXEC,
            recursive: true,
        });
    }
    let dev = inside(Path::new("/dev"));
    steps.push(mount(
        Some("tmpfs"),
        &dev,
        Some("tmpfs"),
        libc::MS_NOSUID | libc::MS_NOEXEC,
        Some("mode=0755,size=64k"),
    )?);
    for device in DEVICES.iter().filter(|d| Path::new("/dev").join(d).exists()) {
        steps.push(Step::Touch(c(&dev.join(device))?));
        steps.push(bind(&Path::new("/dev").join(device), &dev.join(device), 0)?);
    }
    for dir in ["pts", "shm"] {
        steps.push(Step::Mkdir(c(&dev.join(dir))?));
    }
    steps.push(mount(
        Some("devpts"),
        &dev.join("pts"),
        Some("devpts"),
        libc::MS_NOSUID | libc::MS_NOEXEC,
        Some("newinstance,ptmxmode=0666,mode=0620"),
    )?);
    for (to, link) in [
        ("pts/ptmx", "ptmx"),
        ("/proc/self/fd", "fd"),
        ("/proc/self/fd/0", "stdin"),
        ("/proc/self/fd/1", "stdout"),
        ("/proc/self/fd/2", "stderr"),
    ] {
        steps.push(Step::Symlink { to: text(to), link: c(&dev.join(link))? });
    }
    let hidden = hidden_dirs();
    for dir in hidden {
        steps.push(mount(Some("tmpfs"), &inside(dir), Some("tmpfs"), quiet, Some("mode=0755,size=64k"))?);
    }
    let mut writable: Vec<&Path> = writable.to_vec();
    writable.sort_by_key(|p| p.as_os_str().len());
    for dir in &writable {
        // Beneath a directory shown empty, its path is made in the tmpfs.
        if let Some(cover) = hidden.iter().find(|h| dir.starts_with(h)) {
            let mut path = cover.clone();
            for part in dir.strip_prefix(cover).into_iter().flat_map(Path::components) {
                path.push(part);
                steps.push(Step::Mkdir(c(&inside(&path))?));
            }
        }
        steps.push(bind(dir, &inside(dir), libc::MS_REC)?);
        steps.push(Step::SetAttr {
            target: c(&inside(dir))?,
            set: ATTR_NOSUID | ATTR_NODEV,
            recursive: true,
        });
    }
    for record in records {
        steps.push(bind(record, &inside(record), 0)?);
        steps.push(Step::SetAttr {
            target: c(&inside(record))?,
            set: ATTR_RDONLY | ATTR_NOSUID | ATTR_NODEV | ATTR_NOEXEC,
            recursive: false,
        });
    }
    steps.push(Step::SetAttr { target: c(&dev)?, set: ATTR_RDONLY, recursive: false });
    for dir in hidden {
        steps.push(Step::SetAttr { target: c(&inside(dir))?, set: ATTR_RDONLY, recursive: false });
    }
    for (socket, _) in sockets {
        steps.push(Step::Cover(c(&inside(socket))?));
    }
    for secret in secrets {
        steps.push(bind(Path::new("/dev/null"), &inside(secret), 0)?);
    }
    steps.push(Step::Pivot(c(staging)?));
    Ok(steps)
}

/// [`HIDDEN`] as the directories they are (`/var/run` is often `/run`),
/// found once per process (asked again before each RUN).
pub(super) fn hidden_dirs() -> &'static [PathBuf] {
    static DIRS: std::sync::OnceLock<Vec<PathBuf>> = std::sync::OnceLock::new();
    DIRS.get_or_init(find_hidden_dirs)
}

fn find_hidden_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = HIDDEN
        .iter()
        .filter_map(|d| std::fs::canonicalize(d).ok())
        .filter(|d| d.is_dir() && d != Path::new("/"))
        .collect();
    dirs.sort();
    dirs.dedup();
    dirs
}

/// Of tissvm's own secret files (the snapshot key, which signs what a
/// resume trusts), those a RUN would read and the view can cover: existing
/// regular files, canonical, outside `writable` and the directories shown
/// empty anyway.
pub fn coverable<P: AsRef<Path>>(secrets: &[PathBuf], writable: &[P]) -> Vec<PathBuf> {
    let hidden = hidden_dirs();
    regular_files(secrets, |file| {
        !hidden.iter().any(|d| file.starts_with(d)) && !writable.iter().any(|d| file.starts_with(d))
    })
}

/// Of the files tissvm writes as the run goes (its journal, its log), those
/// the view shows read-only: existing regular files, canonical, in a
/// `writable` place (elsewhere the whole view is read-only already).
pub fn records_in<P: AsRef<Path>>(records: &[PathBuf], writable: &[P]) -> Vec<PathBuf> {
    regular_files(records, |file| writable.iter().any(|d| file.starts_with(d)))
}

/// The canonical paths of those of `files` that exist as regular files
/// and that `keep` takes.
fn regular_files(files: &[PathBuf], keep: impl Fn(&Path) -> bool) -> Vec<PathBuf> {
    files
        .iter()
        .filter_map(|file| std::fs::canonicalize(file).ok())
        .filter(|file| std::fs::metadata(file).is_ok_and(|m| m.is_file()) && keep(file))
        .collect()
}

/// A path-named socket of the host: its canonical path and its inode (a
/// service that starts again makes a new one at the same path, and the
/// cover of the old, on a file since removed, is gone with it).
pub type Socket = (PathBuf, u64);

/// The path-named unix sockets bound on the host now that a RUN would reach
/// in the view: not beneath a directory shown empty, the `writable` ones
/// (the RUN's own), `/proc` or `/dev`. Read when the view is built, and
/// again before each RUN, for sockets bound since (`Namespaces::cover`).
pub fn reachable_sockets<P: AsRef<Path>>(writable: &[P]) -> Vec<Socket> {
    let hidden = hidden_dirs();
    host_sockets()
        .into_iter()
        .filter(|(socket, _)| {
            !hidden.iter().any(|d| socket.starts_with(d))
                && !writable.iter().any(|d| socket.starts_with(d))
                && !socket.starts_with("/proc")
                && !socket.starts_with("/dev")
        })
        .collect()
}

/// The path-named unix sockets bound on the host now.
fn host_sockets() -> Vec<Socket> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let Ok(table) = std::fs::read_to_string("/proc/net/unix") else { return Vec::new() };
    let mut sockets: Vec<Socket> = table
        .lines()
        .skip(1)
        .filter_map(|line| line.split_whitespace().nth(7))
        .filter(|path| path.starts_with('/'))
        .filter_map(|path| std::fs::canonicalize(path).ok())
        .filter_map(|path| {
            let meta = std::fs::symlink_metadata(&path).ok()?;
            meta.file_type().is_socket().then(|| (path, meta.ino()))
        })
        .collect();
    sockets.sort();
    sockets.dedup();
    sockets
}
