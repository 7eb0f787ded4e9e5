//! The temporary files of atomic writes (`.tiss-tmp-PID-N-HEX`, beside the
//! file they replace), and the sweep that removes those a killed tissvm
//! left behind: a SIGKILL during a large WRITE leaves its temporary file,
//! which no later run would otherwise ever remove.

use std::collections::HashSet;
use std::os::fd::{AsFd, AsRawFd};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use cap_std::fs::Dir;

/// What every temporary file of this tool's writes starts with.
pub const PREFIX: &str = ".tiss-tmp-";

/// How long a dead process's temporary file is left alone: a process in
/// another PID namespace (a container sharing the workspace) may still be
/// writing one whose PID is not a process here.
const QUIET_FOR: Duration = Duration::from_secs(60);

/// A temporary file's name: this process's PID, a counter and the clock's
/// nanoseconds, so two processes (or two writes) never pick the same one.
pub fn name(counter: u64) -> String {
    let nanos = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    format!("{PREFIX}{}-{counter}-{nanos:08x}", std::process::id())
}

/// Removes from `dir` the temporary files of processes that no longer
/// exist and that nothing touched for a minute. Each directory is swept
/// once per process, so a plan writing many files into one directory lists
/// it once. Best effort: what cannot be read or removed is left.
pub fn sweep_stale(dir: &Dir) {
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
    use super::*;

    #[test]
    fn only_names_of_this_tools_temporary_files_have_an_owner() {
        assert_eq!(owner(".tiss-tmp-4242-0-0badf00d"), Some(4242));
        assert_eq!(owner(&name(7)), Some(std::process::id() as i32));
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
