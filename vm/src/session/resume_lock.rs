//! One resume of a snapshot at a time (book: cli/tissvm.md, "Guards on resume"): the
//! mark in the snapshot's file says it was resumed, but only once a resume
//! has got as far as writing it, and `--force` passes it. So `tissvm
//! resume` also holds, from before it reads the snapshot until it exits, an
//! exclusive `flock` of `<snapshot>.lock` beside it, which holds the pid of
//! its holder. A second resume of the same file finds it held and is
//! refused, `--force` or not.
//!
//! Why a lock file and not a lock of the snapshot itself: the mark replaces
//! the snapshot's file (rename), so a lock of the old file would no longer
//! guard the name. Why `flock`: the kernel releases it when its holder dies,
//! SIGKILL included, so a crashed resume never blocks the next one (its lock
//! file is left behind, free, and is taken over). The holder removes the
//! file while it still holds the lock; a taker checks, once it holds the
//! lock, that the file it locked is still the one at that name, and starts
//! again if not, so two takers can never both hold it.
//!
//! The lock is per name: a copy of the snapshot, or a hard link to it, is
//! another file.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The held lock: released (and its file removed) when dropped, or by the
/// kernel when the process dies.
#[derive(Debug)]
pub struct ResumeLock {
    path: PathBuf,
    _file: File,
}

/// Why the lock was not taken.
#[derive(Debug)]
pub enum LockError {
    /// Another process holds it: the lock file, and the holder's pid if it
    /// has written it.
    Held { path: PathBuf, pid: Option<u32> },
    /// There is no lock to take: the snapshot is not a regular file, or its
    /// directory cannot hold the lock file (why).
    Unavailable(String),
    /// Something other than tissvm made the lock file's name a link or a
    /// name of another file (a plan's command may write beside its
    /// snapshot): never opened, refused with this message.
    Planted(String),
}

/// How often a lock file replaced under a taker is tried again.
const ATTEMPTS: usize = 100;

impl ResumeLock {
    /// Takes the lock of the snapshot at `snapshot` (symbolic links
    /// resolved, so every name of the file that resolves to it shares it).
    pub fn take(snapshot: &Path) -> Result<ResumeLock, LockError> {
        let unavailable = |e: io::Error| LockError::Unavailable(e.to_string());
        let file = std::fs::canonicalize(snapshot).map_err(unavailable)?;
        if !std::fs::metadata(&file).map_err(unavailable)?.is_file() {
            return Err(LockError::Unavailable("it is not a regular file".into()));
        }
        let mut name = file.file_name().unwrap_or_default().to_os_string();
        name.push(".lock");
        let path = file.with_file_name(name);
        for _ in 0..ATTEMPTS {
            // Never through a link, nor into a file with other names: tissvm
            // truncates and writes the lock file, and a link a command put at
            // its name would lead that anywhere (`/etc/passwd`).
            let planted = || {
                LockError::Planted(format!(
                    "`{}` beside the snapshot is a symbolic link, another file's name or not a regular file, \
                     which tissvm did not make (the plan may have): it is not opened; remove it and resume again",
                    path.display()
                ))
            };
            let mut handle = match OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .mode(0o600)
                .custom_flags(libc::O_NOFOLLOW)
                .open(&path)
            {
                Ok(handle) => handle,
                // A link, or a directory or socket made at its name: a
                // resume that went on unlocked would let two run at once.
                Err(e) if matches!(e.raw_os_error(), Some(libc::ELOOP | libc::EISDIR | libc::ENXIO)) => {
                    return Err(planted());
                }
                Err(e) => {
                    return Err(LockError::Unavailable(format!("cannot open `{}`: {e}", path.display())));
                }
            };
            if !handle.metadata().is_ok_and(|m| m.is_file() && m.nlink() == 1) {
                return Err(planted());
            }
            // SAFETY: flock on a descriptor we own; released when it closes.
            if unsafe { libc::flock(handle.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
                let e = io::Error::last_os_error();
                return Err(match e.kind() {
                    io::ErrorKind::WouldBlock => LockError::Held { pid: holder(&mut handle), path },
                    _ => LockError::Unavailable(format!("cannot lock `{}`: {e}", path.display())),
                });
            }
            // The holder before us may have removed the file between our
            // open and our flock: then ours is not the lock, the name's is.
            let locked = handle.metadata().map_err(unavailable)?;
            match std::fs::metadata(&path) {
                Ok(named) if (named.dev(), named.ino()) == (locked.dev(), locked.ino()) => {}
                _ => continue,
            }
            handle.set_len(0).map_err(unavailable)?;
            handle.write_all(format!("{}\n", std::process::id()).as_bytes()).map_err(unavailable)?;
            return Ok(ResumeLock { path, _file: handle });
        }
        Err(LockError::Unavailable(format!("`{}` kept being replaced", path.display())))
    }
}

/// The pid the holder wrote, if it has yet.
fn holder(file: &mut File) -> Option<u32> {
    let mut text = String::new();
    file.read_to_string(&mut text).ok()?;
    text.trim().parse().ok()
}

impl Drop for ResumeLock {
    fn drop(&mut self) {
        // Removed while still held (the descriptor closes after this).
        let _ = std::fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snapshot(dir: &Path) -> PathBuf {
        let path = dir.join("task-1.snap");
        std::fs::write(&path, b"snapshot").unwrap();
        path
    }

    #[test]
    fn a_held_lock_is_refused_naming_its_holder_and_freed_when_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let snap = snapshot(dir.path());
        let lock = ResumeLock::take(&snap).unwrap();
        assert!(dir.path().join("task-1.snap.lock").is_file());
        // Another name of the same file shares its lock.
        let link = dir.path().join("link.snap");
        std::os::unix::fs::symlink(&snap, &link).unwrap();
        match ResumeLock::take(&link) {
            Err(LockError::Held { path, pid }) => {
                assert_eq!(pid, Some(std::process::id()));
                assert_eq!(path, snap.with_extension("snap.lock").canonicalize().unwrap());
            }
            other => panic!("expected the lock to be held, got {other:?}"),
        }
        drop(lock);
        assert!(!dir.path().join("task-1.snap.lock").exists(), "removed on release");
        drop(ResumeLock::take(&snap).expect("free again"));
    }

    /// A link or a second name put where the lock file goes is never
    /// opened: tissvm would truncate what it names and write its pid there.
    #[test]
    fn a_lock_name_that_is_a_link_or_another_files_name_is_refused_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let snap = snapshot(dir.path());
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "keep").unwrap();
        let lock = dir.path().join("task-1.snap.lock");
        for plant in [
            |v: &Path, l: &Path| std::os::unix::fs::symlink(v, l),
            |v: &Path, l: &Path| std::fs::hard_link(v, l),
        ] {
            plant(&victim, &lock).unwrap();
            assert!(matches!(ResumeLock::take(&snap), Err(LockError::Planted(_))));
            assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
            std::fs::remove_file(&lock).unwrap();
        }
        // A directory (a plan's MKDIR) or a FIFO there: a resume must not go
        // on unlocked.
        std::fs::create_dir(&lock).unwrap();
        assert!(matches!(ResumeLock::take(&snap), Err(LockError::Planted(_))));
        std::fs::remove_dir(&lock).unwrap();
        let fifo = std::ffi::CString::new(lock.to_str().unwrap()).unwrap();
        // SAFETY: a plain system call on a path we own.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        assert!(matches!(ResumeLock::take(&snap), Err(LockError::Planted(_))));
        std::fs::remove_file(&lock).unwrap();
        drop(ResumeLock::take(&snap).expect("a lock of its own"));
    }

    #[test]
    fn a_lock_file_left_by_a_dead_holder_is_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let snap = snapshot(dir.path());
        // What a SIGKILLed holder leaves: the file, its pid, no lock.
        std::fs::write(dir.path().join("task-1.snap.lock"), "999999999\n").unwrap();
        let lock = ResumeLock::take(&snap).expect("taken over");
        let text = std::fs::read_to_string(dir.path().join("task-1.snap.lock")).unwrap();
        assert_eq!(text, format!("{}\n", std::process::id()));
        drop(lock);
    }

    #[test]
    fn no_lock_for_what_is_not_a_regular_file() {
        let dir = tempfile::tempdir().unwrap();
        for path in [dir.path().join("missing.snap"), dir.path().to_path_buf()] {
            match ResumeLock::take(&path) {
                Err(LockError::Unavailable(_)) => {}
                other => panic!("{}: expected no lock, got {other:?}", path.display()),
            }
        }
    }
}
