//! The temporary files of atomic writes, and what a killed tissvm could
//! leave of them. The new content of a file is written into a file with no
//! name (`O_TMPFILE`), which dies with the process that holds it: a SIGKILL
//! during a large WRITE leaves nothing behind. It gets a name
//! (`.tiss-tmp-PID-N-HEX`, beside the file it replaces) only once complete
//! and synced, for the moment of the rename over its target. Where the file
//! system or a missing `/proc` rules that out, it is named from the start.
//!
//! A named one that a killed process left (a file system without
//! `O_TMPFILE`, the moment between naming and rename, an older tissvm) is
//! swept by the next write into its directory: removed once no process has
//! its PID and nothing touched it for a minute.

use std::collections::HashSet;
use std::ffi::{CString, OsStr};
use std::fs::File;
use std::io;
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};
use std::sync::Mutex;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use cap_std::fs::{Dir, OpenOptions};

/// What every temporary file of this tool's writes starts with.
pub const PREFIX: &str = ".tiss-tmp-";

/// How long a dead process's temporary file is left alone: a process in
/// another PID namespace (a container sharing the workspace) may still be
/// writing one whose PID is not a process here.
const QUIET_FOR: Duration = Duration::from_secs(60);

/// The new content of a file, until it replaces its target.
pub struct TempFile {
    pub file: File,
    /// Its name in the directory, once it has one.
    name: Option<String>,
}

impl TempFile {
    /// A new file in `dir`, unnamed where it can be. Sweeps `dir` first
    /// ([`sweep_stale`]).
    pub fn create(dir: &Dir) -> io::Result<TempFile> {
        sweep_stale(dir);
        if let Some(file) = unnamed(dir)? {
            return Ok(TempFile { file, name: None });
        }
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        loop {
            let name = next_name();
            match dir.open_with(&name, &options) {
                Ok(file) => return Ok(TempFile { file: file.into_std(), name: Some(name) }),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// Renames the file over `target` in `dir`, naming it first if it has
    /// no name; on failure, nothing of it is left.
    pub fn replace(self, dir: &Dir, target: &OsStr) -> io::Result<()> {
        let TempFile { file, name } = self;
        let name = match name {
            Some(name) => name,
            None => give_name(&file, dir)?,
        };
        drop(file);
        dir.rename(&name, dir, target).inspect_err(|_| {
            let _ = dir.remove_file(&name);
        })
    }

    /// Gives up the new content (a failed write).
    pub fn discard(self, dir: &Dir) {
        if let Some(name) = &self.name {
            let _ = dir.remove_file(name);
        }
    }
}

/// A temporary file's name: this process's PID, a counter and the clock's
/// nanoseconds, so two processes (or two writes) never pick the same one.
fn next_name() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let counter = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    format!("{PREFIX}{}-{counter}-{nanos:08x}", std::process::id())
}

/// An `O_TMPFILE` file in `dir`, if the file system has them and `/proc` is
/// there to name it later (`None`: use a named file).
fn unnamed(dir: &Dir) -> io::Result<Option<File>> {
    static PROC_FD: OnceLock<bool> = OnceLock::new();
    if !*PROC_FD.get_or_init(|| std::path::Path::new("/proc/self/fd").is_dir()) {
        return Ok(None);
    }
    // SAFETY: opens "." beneath a directory descriptor `dir` owns.
    let fd = unsafe {
        libc::openat(
            dir.as_fd().as_raw_fd(),
            c".".as_ptr(),
            libc::O_TMPFILE | libc::O_WRONLY | libc::O_CLOEXEC,
            0o666,
        )
    };
    if fd >= 0 {
        // SAFETY: a fresh descriptor we own.
        return Ok(Some(File::from(unsafe { OwnedFd::from_raw_fd(fd) })));
    }
    let e = io::Error::last_os_error();
    match e.raw_os_error() {
        // No O_TMPFILE in this kernel or file system.
        Some(libc::EOPNOTSUPP | libc::EISDIR | libc::EINVAL) => Ok(None),
        _ => Err(e),
    }
}

/// Links an unnamed file into `dir` under a fresh temporary name.
fn give_name(file: &File, dir: &Dir) -> io::Result<String> {
    let source = CString::new(format!("/proc/self/fd/{}", file.as_raw_fd())).map_err(io::Error::other)?;
    loop {
        let name = next_name();
        let c_name = CString::new(name.as_str()).map_err(io::Error::other)?;
        // SAFETY: both paths are NUL-terminated; the new name is a plain
        // file name beneath a directory descriptor `dir` owns.
        let r = unsafe {
            libc::linkat(
                libc::AT_FDCWD,
                source.as_ptr(),
                dir.as_fd().as_raw_fd(),
                c_name.as_ptr(),
                libc::AT_SYMLINK_FOLLOW,
            )
        };
        if r == 0 {
            return Ok(name);
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::AlreadyExists {
            return Err(e);
        }
    }
}

/// Removes from `dir` the temporary files of processes that no longer
/// exist and that nothing touched for a minute. Each directory is swept
/// once per process, so a plan writing many files into one directory lists
/// it once. Best effort: what cannot be read or removed is left.
fn sweep_stale(dir: &Dir) {
    static SWEPT: Mutex<Option<HashSet<(u64, u64)>>> = Mutex::new(None);
    let Some(id) = identity(dir) else { return };
    {
        let mut swept = SWEPT.lock().unwrap_or_else(|e| e.into_inner());
        if !swept.get_or_insert_with(HashSet::new).insert(id) {
            return;
        }
    }
    let Ok(entries) = dir.entries() else { return };
    let now = SystemTime::now();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(owner) else { continue };
        let quiet = entry
            .metadata()
            .ok()
            .filter(|m| m.is_file())
            .and_then(|m| m.modified().ok())
            .and_then(|modified| now.duration_since(modified.into_std()).ok())
            .is_some_and(|age| age >= QUIET_FOR);
        if quiet && !process_exists(pid) {
            let _ = dir.remove_file(&name);
        }
    }
}

/// The PID in a temporary file's name, if `name` is one.
fn owner(name: &str) -> Option<i32> {
    let rest = name.strip_prefix(PREFIX)?;
    let (pid, rest) = rest.split_once('-')?;
    let (counter, nanos) = rest.split_once('-')?;
    let all_digits = |s: &str, hex: bool| {
        !s.is_empty() && s.chars().all(|c| if hex { c.is_ascii_hexdigit() } else { c.is_ascii_digit() })
    };
    (all_digits(counter, false) && all_digits(nanos, true)).then_some(())?;
    pid.parse().ok().filter(|&pid: &i32| pid > 0)
}

fn process_exists(pid: i32) -> bool {
    // SAFETY: signal 0 only checks whether the process exists.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// The directory's device and inode.
fn identity(dir: &Dir) -> Option<(u64, u64)> {
    // SAFETY: fstat on a descriptor `dir` owns, into a zeroed stat.
    let mut stat: libc::stat = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::fstat(dir.as_fd().as_raw_fd(), &mut stat) };
    (r == 0).then_some((stat.st_dev, stat.st_ino))
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn names(dir: &std::path::Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// So a process killed while writing leaves nothing (on a file system
    /// with `O_TMPFILE`, as the test's temporary directory has on Linux).
    #[test]
    fn the_new_content_has_no_name_until_it_replaces_its_target() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = Dir::open_ambient_dir(tmp.path(), cap_std::ambient_authority()).unwrap();
        std::fs::write(tmp.path().join("target.txt"), "old").unwrap();
        let mut temp = TempFile::create(&dir).unwrap();
        temp.file.write_all(b"new").unwrap();
        assert_eq!(names(tmp.path()), ["target.txt"], "nothing named while it is written");
        temp.replace(&dir, OsStr::new("target.txt")).unwrap();
        assert_eq!(std::fs::read_to_string(tmp.path().join("target.txt")).unwrap(), "new");
        assert_eq!(names(tmp.path()), ["target.txt"]);
        // Given up: nothing left, the target as it was.
        let mut temp = TempFile::create(&dir).unwrap();
        temp.file.write_all(b"newer").unwrap();
        temp.discard(&dir);
        assert_eq!(names(tmp.path()), ["target.txt"]);
        assert_eq!(std::fs::read_to_string(tmp.path().join("target.txt")).unwrap(), "new");
    }

    #[test]
    fn only_names_of_this_tools_temporary_files_have_an_owner() {
        assert_eq!(owner(".tiss-tmp-4242-0-0badf00d"), Some(4242));
        assert_eq!(owner(&next_name()), Some(std::process::id() as i32));
        for other in [
            ".tiss-tmp-",
            ".tiss-tmp-x-0-00",
            ".tiss-tmp-12-0-zz",
            "tiss-tmp-1-0-00",
            ".tiss-tmp-0-1-00",
            "notes.txt",
        ] {
            assert_eq!(owner(other), None, "{other}");
        }
    }
}
