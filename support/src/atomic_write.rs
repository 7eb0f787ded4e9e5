//! Writing a file so that a reader sees the old content or the whole new
//! one, never a part: a temporary file in the same directory, fsync, rename
//! over the target, fsync of the directory. Used by the VM for snapshots and
//! reports; `tissc compile` writes `.tbc` files with [`replace_with`], the
//! same without the two fsyncs.
//!
//! Only a regular file is replaced. A target that is something else —
//! `/dev/null`, `/dev/stdout`, a FIFO — is written into, as a shell's `>`
//! would: renamed over, it was gone (run as root, `tissc compile -o
//! /dev/null` left a regular file in its place, and every later `>
//! /dev/null` of the machine wrote into it). A symbolic link to a regular
//! file has that file replaced and stays a link.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

static TEMP_COUNTER: AtomicUsize = AtomicUsize::new(0);

/// Writes `bytes` to a new temporary file in `dir` and syncs it. `mode` sets
/// the permissions (e.g. `0o600` for files that may hold private data);
/// `None` leaves them to the umask.
pub fn write_temp(dir: &Path, bytes: &[u8], mode: Option<u32>) -> io::Result<PathBuf> {
    write_temp_with(dir, mode, |file| file.write_all(bytes))
}

/// [`write_temp`] of what `write` writes into the new file; if it fails, the
/// file is removed and its error returned.
pub fn write_temp_with(
    dir: &Path,
    mode: Option<u32>,
    write: impl FnOnce(&mut File) -> io::Result<()>,
) -> io::Result<PathBuf> {
    temp_file(dir, mode, write, Sync::Yes)
}

/// Whether a new file (and the rename into place) is made durable.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sync {
    Yes,
    No,
    /// Not synced, and put in place by exchanging names, which on ext4
    /// skips the write-out a rename over a file starts (`exchange`).
    NoWriteOut,
}

fn temp_file(
    dir: &Path,
    mode: Option<u32>,
    write: impl FnOnce(&mut File) -> io::Result<()>,
    sync: Sync,
) -> io::Result<PathBuf> {
    loop {
        let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!(".tiss-{}-{n}.tmp", std::process::id()));
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        if let Some(mode) = mode {
            options.mode(mode);
        }
        let mut file = match options.open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && n < 1_000_000 => continue,
            Err(e) => return Err(e),
        };
        let written =
            write(&mut file).and_then(|()| if sync == Sync::Yes { file.sync_all() } else { Ok(()) });
        if let Err(e) = written {
            let _ = fs::remove_file(&path);
            return Err(e);
        }
        return Ok(path);
    }
}

/// Makes a rename or link in `dir` durable.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// The directory a path is in (`.` for a bare file name).
pub fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Replaces `target` with `bytes` atomically (see the module documentation).
pub fn write_atomically(target: &Path, bytes: &[u8], mode: Option<u32>) -> io::Result<()> {
    write_atomically_with(target, mode, |file| file.write_all(bytes))
}

/// Replaces `target` atomically with what `write` writes into a new file
/// (so the content need not be in memory); if `write` fails, `target` is
/// left as it was and its error returned.
pub fn write_atomically_with(
    target: &Path,
    mode: Option<u32>,
    write: impl FnOnce(&mut File) -> io::Result<()>,
) -> io::Result<()> {
    replace(target, mode, write, Sync::Yes)
}

/// [`write_atomically_with`] without either fsync: a reader still sees the
/// old file or the whole new one, but after a system crash the new one may
/// be empty or the old one back. For output that can be made again, like
/// `tissc compile`'s bytecode (a damaged `.tbc` is refused by its checksum;
/// compilers do not sync their output): the two fsyncs took 2-18 ms of a
/// 50 ms compile of the 50,000-line bench plan.
pub fn replace_with(
    target: &Path,
    mode: Option<u32>,
    write: impl FnOnce(&mut File) -> io::Result<()>,
) -> io::Result<()> {
    replace(target, mode, write, Sync::No)
}

/// [`replace_with`] for output that is made again rather than recovered,
/// like `tissc compile`'s bytecode: a regular file is replaced by
/// exchanging names, not by a rename, which on ext4 starts writing the new
/// data out first (`auto_da_alloc`, for programs that never sync): 1.6 ms
/// of a 28 ms compile. After a system crash the file is then more likely
/// empty, where a rename leaves the old one or the new one in practice; so
/// a checkpoint, which is there to be recovered, goes through [`replace_with`].
pub fn replace_rebuildable(
    target: &Path,
    mode: Option<u32>,
    write: impl FnOnce(&mut File) -> io::Result<()>,
) -> io::Result<()> {
    replace(target, mode, write, Sync::NoWriteOut)
}

fn replace(
    target: &Path,
    mode: Option<u32>,
    write: impl FnOnce(&mut File) -> io::Result<()>,
    sync: Sync,
) -> io::Result<()> {
    if target.file_name().is_none() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a file name"));
    }
    let resolved;
    let target = match Existing::of(target) {
        Existing::Special => return write(&mut OpenOptions::new().write(true).open(target)?),
        Existing::Linked => match fs::canonicalize(target) {
            Ok(path) => {
                resolved = path;
                &resolved
            }
            // A link whose path cannot be named (a /proc descriptor link):
            // written through, in place.
            Err(_) => return write(&mut OpenOptions::new().write(true).truncate(true).open(target)?),
        },
        Existing::Plain => target,
    };
    let dir = parent_of(target);
    let temp = temp_file(dir, mode, write, sync)?;
    if sync == Sync::NoWriteOut && exchange(&temp, target) {
        return Ok(());
    }
    if let Err(e) = fs::rename(&temp, target) {
        let _ = fs::remove_file(&temp);
        return Err(e);
    }
    if sync == Sync::Yes { sync_dir(dir) } else { Ok(()) }
}

/// Puts the new file `temp` in the place of `target`, a regular file, by
/// exchanging the two names and removing the old file under the temporary
/// one; false (nothing changed) where that cannot be done, and the caller
/// renames ([`replace_rebuildable`] says why).
#[cfg(target_os = "linux")]
fn exchange(temp: &Path, target: &Path) -> bool {
    if !fs::symlink_metadata(target).is_ok_and(|meta| meta.file_type().is_file()) {
        return false;
    }
    if rename_exchange(temp, target).is_err() {
        return false;
    }
    // The target was replaced between the look and the exchange by
    // something other than a file (a directory): put back, it is left to
    // the rename, which refuses it.
    if !fs::symlink_metadata(temp).is_ok_and(|meta| meta.file_type().is_file()) {
        let _ = rename_exchange(temp, target);
        return false;
    }
    let _ = fs::remove_file(temp);
    true
}

/// `renameat2(a, b, RENAME_EXCHANGE)`: the two names swap files at once
/// (EINVAL where the file system cannot).
#[cfg(target_os = "linux")]
fn rename_exchange(a: &Path, b: &Path) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let from = std::ffi::CString::new(a.as_os_str().as_bytes())?;
    let to = std::ffi::CString::new(b.as_os_str().as_bytes())?;
    // SAFETY: two NUL-terminated paths, alive for the call.
    let done = unsafe {
        libc::renameat2(libc::AT_FDCWD, from.as_ptr(), libc::AT_FDCWD, to.as_ptr(), libc::RENAME_EXCHANGE)
    };
    if done == 0 { Ok(()) } else { Err(io::Error::last_os_error()) }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_temp: &Path, _target: &Path) -> bool {
    false
}

/// What a target names now, as far as replacing it goes.
enum Existing {
    /// Nothing yet, a regular file, a directory (the rename refuses it), or
    /// a dangling link (replaced).
    Plain,
    /// A symbolic link to a regular file or a directory (which the rename
    /// then refuses, as for the directory itself).
    Linked,
    /// A device, a FIFO or a socket, maybe through links: written into.
    Special,
}

impl Existing {
    /// One `lstat` for the usual case (a regular file, or nothing yet); a
    /// `stat` through a link only for a link.
    fn of(target: &Path) -> Existing {
        let Ok(meta) = fs::symlink_metadata(target) else { return Existing::Plain };
        let kind = meta.file_type();
        if kind.is_symlink() {
            return match fs::metadata(target) {
                Ok(through) if through.is_file() || through.is_dir() => Existing::Linked,
                Ok(_) => Existing::Special,
                Err(_) => Existing::Plain,
            };
        }
        if kind.is_file() || kind.is_dir() { Existing::Plain } else { Existing::Special }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn replaces_the_file_and_leaves_no_temporary_behind() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.bin");
        fs::write(&target, b"old").unwrap();
        write_atomically(&target, b"new content", Some(0o600)).unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"new content");
        assert_eq!(fs::metadata(&target).unwrap().permissions().mode() & 0o777, 0o600);
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().flatten().map(|e| e.file_name()).collect();
        assert_eq!(names, [std::ffi::OsString::from("out.bin")]);
    }

    #[test]
    fn a_failed_write_leaves_the_target_and_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.bin");
        fs::write(&target, b"old").unwrap();
        let result = write_atomically_with(&target, None, |file| {
            file.write_all(b"half")?;
            Err(io::Error::other("refused"))
        });
        assert_eq!(result.unwrap_err().to_string(), "refused");
        assert_eq!(fs::read(&target).unwrap(), b"old");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    type Replace = fn(&Path, &mut dyn FnMut(&mut File) -> io::Result<()>) -> io::Result<()>;

    /// Both unsynced replacements, the one by a rename and the one by an exchange.
    const UNSYNCED: [(&str, Replace); 2] = [
        ("replace_with", |target, write| replace_with(target, None, write)),
        ("replace_rebuildable", |target, write| replace_rebuildable(target, None, write)),
    ];

    /// The unsynced replacements are as atomic: the whole new content under
    /// the target's name, no temporary left, and a failed write changes
    /// nothing; a directory is refused and `/dev/null` written into.
    #[test]
    fn unsynced_replacements_replace_whole_or_not_at_all() {
        for (name, replace) in UNSYNCED {
            let dir = tempfile::tempdir().unwrap();
            let target = dir.path().join("out.tbc");
            fs::write(&target, b"old").unwrap();
            replace(&target, &mut |file| file.write_all(b"new content")).unwrap();
            assert_eq!(fs::read(&target).unwrap(), b"new content", "{name}");
            let failed = replace(&target, &mut |file| {
                file.write_all(b"half")?;
                Err(io::Error::other("refused"))
            });
            assert_eq!(failed.unwrap_err().to_string(), "refused", "{name}");
            assert_eq!(fs::read(&target).unwrap(), b"new content", "{name}");
            let names: Vec<_> = fs::read_dir(dir.path()).unwrap().flatten().map(|e| e.file_name()).collect();
            assert_eq!(names, [std::ffi::OsString::from("out.tbc")], "{name}");
            assert!(replace(Path::new("/"), &mut |file| file.write_all(b"x")).is_err(), "{name}");
            fs::create_dir(dir.path().join("sub")).unwrap();
            assert!(replace(&dir.path().join("sub"), &mut |file| file.write_all(b"x")).is_err(), "{name}");
            assert!(dir.path().join("sub").is_dir(), "{name}");
            replace(Path::new("/dev/null"), &mut |file| file.write_all(b"gone")).unwrap();
            assert!(std::os::unix::fs::FileTypeExt::is_char_device(
                &fs::metadata("/dev/null").unwrap().file_type()
            ));
        }
    }

    /// The exchange itself: the new file takes the target's name and the
    /// old one is gone, where the file system can exchange names (tmpfs,
    /// ext4, btrfs, xfs); where it cannot, nothing changed and the caller
    /// renames.
    #[cfg(target_os = "linux")]
    #[test]
    fn exchange_puts_the_new_file_in_place_and_removes_the_old() {
        let dir = tempfile::tempdir().unwrap();
        let (temp, target) = (dir.path().join(".tiss-1-0.tmp"), dir.path().join("out.tbc"));
        fs::write(&temp, b"new").unwrap();
        fs::write(&target, b"old").unwrap();
        if exchange(&temp, &target) {
            assert_eq!(fs::read(&target).unwrap(), b"new");
            assert!(!temp.exists(), "the old file is left under the temporary name");
        } else {
            // Only a file system without RENAME_EXCHANGE may say no.
            let refused = rename_exchange(&temp, &target).unwrap_err();
            assert_eq!(refused.raw_os_error(), Some(libc::EINVAL));
            assert_eq!(fs::read(&target).unwrap(), b"old");
        }
        // Nothing to exchange with: not a file, or nothing there.
        fs::write(&temp, b"new").unwrap();
        assert!(!exchange(&temp, &dir.path().join("missing")));
        fs::create_dir(dir.path().join("sub")).unwrap();
        assert!(!exchange(&temp, &dir.path().join("sub")));
        assert!(temp.exists() && dir.path().join("sub").is_dir());
    }

    /// Replacing a file gives its name a new file, as a rename does: other
    /// names of the old one (hard links) keep the old content, and the
    /// temporary name that held the old file after the exchange is gone.
    #[test]
    fn replace_rebuildable_leaves_other_names_of_the_old_file_alone() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.tbc");
        fs::write(&target, b"old").unwrap();
        fs::hard_link(&target, dir.path().join("other")).unwrap();
        replace_rebuildable(&target, None, |file| file.write_all(b"new")).unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"new");
        assert_eq!(fs::read(dir.path().join("other")).unwrap(), b"old");
        let mut names: Vec<_> = fs::read_dir(dir.path()).unwrap().flatten().map(|e| e.file_name()).collect();
        names.sort();
        assert_eq!(names, [std::ffi::OsString::from("other"), std::ffi::OsString::from("out.tbc")]);
    }

    #[test]
    fn a_directory_target_is_an_error_and_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("sub")).unwrap();
        assert!(write_atomically(&dir.path().join("sub"), b"x", None).is_err());
        assert!(write_atomically(Path::new("/"), b"x", None).is_err());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
        // A link to a directory is refused the same way, and stays a link.
        std::os::unix::fs::symlink("sub", dir.path().join("link")).unwrap();
        assert!(write_atomically(&dir.path().join("link"), b"x", None).is_err());
        assert!(fs::symlink_metadata(dir.path().join("link")).unwrap().file_type().is_symlink());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 2);
    }

    /// `/dev/null` stays the device (as root the rename used to replace it
    /// with a regular file), and what is written goes nowhere.
    #[test]
    fn dev_null_is_written_into_not_replaced() {
        use std::os::unix::fs::FileTypeExt;
        write_atomically(Path::new("/dev/null"), b"gone", None).unwrap();
        replace_with(Path::new("/dev/null"), None, |file| file.write_all(b"gone")).unwrap();
        let meta = fs::metadata("/dev/null").unwrap();
        assert!(meta.file_type().is_char_device(), "/dev/null is no longer a device");
        assert_eq!(fs::read("/dev/null").unwrap(), b"");
    }

    /// A FIFO is written into, as `>` would: the reader gets the bytes, and
    /// the FIFO is still one.
    #[test]
    fn a_fifo_is_written_into() {
        use std::os::unix::fs::FileTypeExt;
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a plain system call on a C string.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        // The reader end first (non-blocking), so the write does not wait
        // for one, and a regression fails rather than hangs.
        let mut reader = OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(&fifo).unwrap();
        write_atomically(&fifo, b"through the pipe", None).unwrap();
        let mut got = Vec::new();
        let _ = io::Read::read_to_end(&mut reader, &mut got);
        assert_eq!(got, b"through the pipe");
        assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary left");
    }

    /// A link to a regular file: the file is replaced, the link stays.
    #[test]
    fn a_link_keeps_linking_to_the_replaced_file() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.tbc");
        let link = dir.path().join("link.tbc");
        fs::write(&real, b"old").unwrap();
        std::os::unix::fs::symlink("real.tbc", &link).unwrap();
        write_atomically(&link, b"new", None).unwrap();
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(fs::read(&real).unwrap(), b"new");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 2);
    }
}
