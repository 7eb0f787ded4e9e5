//! Workspace confinement (SPEC §8): every path a plan names is checked
//! lexically ([`check_relative`]), then resolved component by component
//! beneath the workspace directory, symlinks included, **before** anything is
//! created, written or removed. A path that leads outside (absolute, `..`
//! climbing out, or a symlink whose target is absolute or climbs out) is a
//! [`HostError::Security`]; nothing is touched.
//!
//! The operations themselves then go through a `cap-std` [`Dir`] for the
//! workspace, on the resolved path (which has no symlink left in its existing
//! part), so a symlink swapped in between the check and the use still cannot
//! lead out: `cap-std` refuses it, and that refusal is a security violation
//! too.
//!
//! Decisions:
//! - A symlink inside the workspace whose target is inside it is followed
//!   (READ, WRITE and APPEND act on its target; the link stays a link). A
//!   symlink with an *absolute* target is refused even when the target happens
//!   to lie inside the workspace.
//! - DELETE of a symlink removes the link itself and never follows it, so it
//!   cannot touch anything outside (its parent directories are still checked).
//! - FILE tests of a missing path are false (EXISTS, IS_EMPTY and CONTAINS
//!   alike), never an error. IS_EMPTY is "length 0" for a file and "no
//!   entries" for a directory; CONTAINS searches the bytes of a regular file
//!   (false for a directory).
//! - WRITE is atomic: a temporary file beside the target (with no name while
//!   it is written, `temp_files.rs`; a name, when it gets one, is created
//!   exclusively, so it never follows a planted link), fsync, rename over
//!   the target, fsync of the directory. A replaced file keeps its
//!   permissions.
//!   APPEND is existing bytes + new text, written the same way.

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, AsRawFd};
use std::path::{Component, Path, PathBuf};

use cap_std::ambient_authority;
use cap_std::fs::Dir;

use crate::host::temp_files::TempFile;
use crate::host::{FileQuery, HostError, check_relative};

/// Symlinks followed while resolving one path (as Linux's `MAXSYMLINKS`).
const MAX_SYMLINKS: u32 = 40;

/// The plan's workspace directory.
#[derive(Debug)]
pub struct Workspace {
    dir: Dir,
    /// Absolute and canonical.
    root: PathBuf,
}

/// A working directory for a RUN, guaranteed to lie beneath the workspace
/// while this value lives (it holds the directory open).
#[derive(Debug)]
pub struct RunDir<'w> {
    /// The directory `cwd` names: the workspace's own for the workspace
    /// itself (no descriptor to duplicate per RUN), else one opened for it.
    /// The child enters it by this descriptor (`fchdir`), so a rename or a
    /// symlink planted after the check cannot redirect it.
    dir: HeldDir<'w>,
    real: PathBuf,
}

/// The directory a [`RunDir`] keeps open while its RUN runs.
#[derive(Debug)]
enum HeldDir<'w> {
    Workspace(&'w Dir),
    Opened(Dir),
}

impl AsFd for HeldDir<'_> {
    fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        match self {
            HeldDir::Workspace(dir) => dir.as_fd(),
            HeldDir::Opened(dir) => dir.as_fd(),
        }
    }
}

impl RunDir<'_> {
    /// The open directory, for the child's `fchdir`.
    pub fn descriptor(&self) -> std::os::fd::BorrowedFd<'_> {
        self.dir.as_fd()
    }

    /// The directory's real path, for messages, logs and the `PWD` of a
    /// command run directly.
    pub fn real_path(&self) -> &Path {
        &self.real
    }
}

/// A path resolved beneath the workspace.
#[derive(Debug, Default)]
struct Resolved {
    /// The part that exists: relative to the workspace, no `.`/`..`, no
    /// symlink (except possibly the last component when it was not followed).
    existing: PathBuf,
    /// The components that do not exist yet, in order.
    missing: Vec<OsString>,
}

impl Resolved {
    fn exists(&self) -> bool {
        self.missing.is_empty()
    }

    fn full(&self) -> PathBuf {
        let mut path = self.existing.clone();
        path.extend(&self.missing);
        path
    }
}

impl Workspace {
    /// Opens the workspace at `root` (an existing directory).
    pub fn open(root: &Path) -> Result<Workspace, HostError> {
        let fail =
            |e: io::Error| HostError::Command(format!("cannot open the workspace `{}`: {e}", root.display()));
        let canonical = std::fs::canonicalize(root).map_err(fail)?;
        let dir = Dir::open_ambient_dir(&canonical, ambient_authority()).map_err(fail)?;
        Ok(Workspace { dir, root: canonical })
    }

    /// The workspace's absolute, canonical path.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// READ: the file's text. A missing, non-regular or non-UTF-8 file is a
    /// command error.
    pub fn read(&self, path: &str) -> Result<String, HostError> {
        let resolved = self.resolve(path, true)?;
        not_a_directory_path("read", path)?;
        if !resolved.exists() {
            return Err(HostError::Command(format!("cannot read `{path}`: no such file")));
        }
        let bytes = self.read_bytes(path, &resolved.existing)?;
        String::from_utf8(bytes).map_err(|e| {
            HostError::Command(format!(
                "cannot read `{path}`: not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ))
        })
    }

    /// WRITE / APPEND, atomically, creating parent directories.
    pub fn write(&self, path: &str, content: &str, append: bool) -> Result<(), HostError> {
        let resolved = self.resolve(path, true)?;
        not_a_directory_path("write", path)?;
        let target = resolved.full();
        let (Some(parent), Some(name)) = (target.parent(), target.file_name()) else {
            return Err(HostError::Command(format!("cannot write `{path}`: it is the workspace directory")));
        };
        let mut data = Vec::new();
        let mut permissions = None;
        if resolved.exists() {
            let meta = self.metadata(&target).map_err(|e| io_error("write", path, e))?;
            if meta.is_dir() {
                return Err(HostError::Command(format!("cannot write `{path}`: it is a directory")));
            }
            if !meta.is_file() {
                return Err(HostError::Command(format!("cannot write `{path}`: not a regular file")));
            }
            permissions = Some(meta.permissions());
            if append {
                data = self.read_bytes(path, &target)?;
            }
        }
        data.extend_from_slice(content.as_bytes());

        let parent_dir = if parent.as_os_str().is_empty() {
            self.dir.try_clone()
        } else {
            self.dir.create_dir_all(parent).and_then(|()| self.dir.open_dir(parent))
        }
        .map_err(|e| io_error("write", path, e))?;
        atomic_replace(&parent_dir, name, &data, permissions).map_err(|e| io_error("write", path, e))
    }

    /// MKDIR: the directory and its parents; no error if it exists.
    pub fn mkdir(&self, path: &str) -> Result<(), HostError> {
        let resolved = self.resolve(path, true)?;
        if resolved.exists() {
            let meta = self.metadata(&resolved.existing).map_err(|e| io_error("create", path, e))?;
            if meta.is_dir() {
                return Ok(());
            }
            return Err(HostError::Command(format!(
                "cannot create the directory `{path}`: a file of that name exists"
            )));
        }
        self.dir.create_dir_all(resolved.full()).map_err(|e| io_error("create the directory", path, e))
    }

    /// DELETE: a file, a symlink (the link itself), an empty directory, or
    /// with `recursive` a directory and everything in it. A missing path is a
    /// command error.
    pub fn delete(&self, path: &str, recursive: bool) -> Result<(), HostError> {
        let resolved = self.resolve(path, false)?;
        if !resolved.exists() {
            return Err(HostError::Command(format!("cannot delete `{path}`: no such file or directory")));
        }
        let target = &resolved.existing;
        if target.as_os_str().is_empty() {
            return Err(HostError::Command(format!("cannot delete `{path}`: it is the workspace itself")));
        }
        let meta = self.dir.symlink_metadata(target).map_err(|e| io_error("delete", path, e))?;
        let result = if !meta.is_dir() {
            self.dir.remove_file(target)
        } else if recursive {
            self.dir.remove_dir_all(target)
        } else {
            self.dir.remove_dir(target)
        };
        result.map_err(|e| {
            if e.kind() == io::ErrorKind::DirectoryNotEmpty {
                HostError::Command(format!(
                    "cannot delete `{path}`: the directory is not empty (use `DELETE \"{path}\" RECURSIVE`)"
                ))
            } else {
                io_error("delete", path, e)
            }
        })
    }

    /// FILE path EXISTS / IS_EMPTY / CONTAINS. A missing path is false.
    pub fn file_test(&self, path: &str, query: FileQuery<'_>) -> Result<bool, HostError> {
        let resolved = self.resolve(path, true)?;
        if !resolved.exists() {
            return Ok(false);
        }
        let target = &resolved.existing;
        let meta = self.metadata(target).map_err(|e| io_error("test", path, e))?;
        if path.ends_with('/') && !meta.is_dir() {
            // As for the system: `file.txt/` names a directory, and there is none.
            return Ok(false);
        }
        match query {
            FileQuery::Exists => Ok(true),
            FileQuery::IsEmpty if meta.is_dir() => {
                let entries = if target.as_os_str().is_empty() {
                    self.dir.entries()
                } else {
                    self.dir.read_dir(target)
                };
                let mut entries = entries.map_err(|e| io_error("list", path, e))?;
                Ok(entries.next().is_none())
            }
            FileQuery::IsEmpty => Ok(meta.len() == 0),
            FileQuery::Contains(_) if !meta.is_file() => Ok(false),
            FileQuery::Contains(needle) => {
                let file = self.dir.open(target).map_err(|e| io_error("read", path, e))?;
                stream_contains(file, needle.as_bytes()).map_err(|e| io_error("read", path, e))
            }
        }
    }

    /// The working directory for a RUN: the workspace, or `IN path` beneath
    /// it, which must be an existing directory.
    pub fn dir_for_run(&self, path: Option<&str>) -> Result<RunDir<'_>, HostError> {
        let (dir, rel) = match path {
            None => (Ok(HeldDir::Workspace(&self.dir)), PathBuf::new()),
            Some(path) => {
                let resolved = self.resolve(path, true)?;
                if !resolved.exists() {
                    return Err(HostError::Command(format!("the directory `{path}` does not exist")));
                }
                let rel = resolved.existing;
                let meta = self.metadata(&rel).map_err(|e| io_error("enter", path, e))?;
                if !meta.is_dir() {
                    return Err(HostError::Command(format!("`{path}` is not a directory")));
                }
                let dir = if rel.as_os_str().is_empty() {
                    Ok(HeldDir::Workspace(&self.dir))
                } else {
                    self.dir.open_dir(&rel).map(HeldDir::Opened)
                };
                (dir, rel)
            }
        };
        let shown = path.unwrap_or(".");
        let dir = dir.map_err(|e| io_error("enter", shown, e))?;
        // `join("")` would add a trailing `/`, which a `PWD` must not have.
        let real = if rel.as_os_str().is_empty() { self.root.clone() } else { self.root.join(&rel) };
        Ok(RunDir { dir, real })
    }

    /// Metadata (following symlinks) of a resolved path; the empty path is
    /// the workspace itself.
    fn metadata(&self, rel: &Path) -> io::Result<cap_std::fs::Metadata> {
        if rel.as_os_str().is_empty() { self.dir.dir_metadata() } else { self.dir.metadata(rel) }
    }

    /// Reads a resolved regular file.
    fn read_bytes(&self, path: &str, target: &Path) -> Result<Vec<u8>, HostError> {
        let meta = self.metadata(target).map_err(|e| io_error("read", path, e))?;
        if meta.is_dir() {
            return Err(HostError::Command(format!("cannot read `{path}`: it is a directory")));
        }
        if !meta.is_file() {
            return Err(HostError::Command(format!("cannot read `{path}`: not a regular file")));
        }
        self.dir.read(target).map_err(|e| io_error("read", path, e))
    }

    /// Checks `path` lexically, then resolves it beneath the workspace
    /// without touching anything: every existing component is looked at with
    /// `lstat`, every symlink read and followed (the last one only when
    /// `follow_last`), and anything that would lead outside is refused.
    fn resolve(&self, path: &str, follow_last: bool) -> Result<Resolved, HostError> {
        check_relative(path).map_err(HostError::Security)?;
        let mut queue: VecDeque<OsString> = VecDeque::new();
        push_components(&mut queue, Path::new(path), path)?;
        let mut resolved = Resolved::default();
        let mut links = 0;
        while let Some(part) = queue.pop_front() {
            if part == ".." {
                if resolved.missing.pop().is_none() && !resolved.existing.pop() {
                    return Err(escape(path));
                }
                continue;
            }
            if !resolved.missing.is_empty() {
                resolved.missing.push(part);
                continue;
            }
            let candidate = resolved.existing.join(&part);
            match self.dir.symlink_metadata(&candidate) {
                Ok(meta) if meta.is_symlink() && (follow_last || !queue.is_empty()) => {
                    links += 1;
                    if links > MAX_SYMLINKS {
                        return Err(HostError::Command(format!(
                            "cannot resolve `{path}`: too many levels of symbolic links"
                        )));
                    }
                    let target =
                        self.dir.read_link_contents(&candidate).map_err(|e| io_error("resolve", path, e))?;
                    if target.has_root() {
                        return Err(HostError::Security(format!(
                            "`{path}` leads outside the workspace: the symbolic link `{}` points to `{}`",
                            candidate.display(),
                            target.display()
                        )));
                    }
                    let mut spliced = VecDeque::new();
                    push_components(&mut spliced, &target, path)?;
                    spliced.extend(queue.drain(..));
                    queue = spliced;
                }
                Ok(_) => resolved.existing = candidate,
                Err(e) if e.kind() == io::ErrorKind::NotFound => resolved.missing.push(part),
                Err(e) => return Err(io_error("resolve", path, e)),
            }
        }
        Ok(resolved)
    }
}

/// A path ending in `/` names a directory, which READ, WRITE and APPEND
/// cannot take (the system's own path lookup would refuse `file.txt/` too;
/// splitting the path into components would silently drop the slash).
fn not_a_directory_path(action: &str, path: &str) -> Result<(), HostError> {
    let Some(file) = path.strip_suffix('/') else { return Ok(()) };
    let file = file.trim_end_matches('/');
    Err(HostError::Command(if file.is_empty() {
        format!("cannot {action} `{path}`: it names a directory, not a file")
    } else {
        format!(
            "cannot {action} `{path}`: a path ending in `/` names a directory, not a file; write `{file}`"
        )
    }))
}

/// Splits `path` into normal components and `..`, dropping `.`.
fn push_components(queue: &mut VecDeque<OsString>, path: &Path, shown: &str) -> Result<(), HostError> {
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => queue.push_back(OsString::from("..")),
            Component::Normal(part) => queue.push_back(part.to_os_string()),
            Component::RootDir | Component::Prefix(_) => return Err(escape(shown)),
        }
    }
    Ok(())
}

fn escape(path: &str) -> HostError {
    HostError::Security(format!("`{path}` leads outside the workspace"))
}

/// `cap-std`'s refusal of a path that would escape its directory.
fn is_escape(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::PermissionDenied
        && e.raw_os_error().is_none()
        && e.to_string().contains("outside of the filesystem")
}

fn io_error(op: &str, path: &str, e: io::Error) -> HostError {
    if is_escape(&e) { escape(path) } else { HostError::Command(format!("cannot {op} `{path}`: {e}")) }
}

/// Writes `data` to a new temporary file in `dir` (`temp_files.rs`: with no
/// name while it is written), syncs it, renames it over `name` and syncs
/// `dir`. Nothing of it is left on failure.
fn atomic_replace(
    dir: &Dir,
    name: &OsStr,
    data: &[u8],
    permissions: Option<cap_std::fs::Permissions>,
) -> io::Result<()> {
    let mut temp = TempFile::create(dir)?;
    let written = (|| {
        temp.file.write_all(data)?;
        if let Some(permissions) = permissions {
            let permissions = permissions.into_std(&temp.file)?;
            temp.file.set_permissions(permissions)?;
        }
        temp.file.sync_all()
    })();
    if let Err(e) = written {
        temp.discard(dir);
        return Err(e);
    }
    temp.replace(dir, name)?;
    // SAFETY: fsync on a descriptor `dir` owns. Durability of the rename
    // only; a failure here does not undo the write.
    unsafe {
        libc::fsync(dir.as_fd().as_raw_fd());
    }
    Ok(())
}

/// Whether the bytes of `reader` contain `needle`, reading in chunks so a
/// large file is never held whole.
fn stream_contains(mut reader: impl Read, needle: &[u8]) -> io::Result<bool> {
    if needle.is_empty() {
        return Ok(true);
    }
    let chunk = 64 * 1024;
    let keep = needle.len() - 1;
    let mut window: Vec<u8> = Vec::with_capacity(chunk + keep);
    let mut buf = vec![0u8; chunk];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => return Ok(false),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        window.extend_from_slice(&buf[..n]);
        if window.len() >= needle.len() && window.windows(needle.len()).any(|w| w == needle) {
            return Ok(true);
        }
        if window.len() > keep {
            window.drain(..window.len() - keep);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use crate::host::sandbox::UNCONFINED;
    use std::os::unix::fs::symlink;

    use super::*;

    /// A workspace and, beside it, an "outside" directory holding a secret.
    struct Fixture {
        _tmp: tempfile::TempDir,
        root: PathBuf,
        outside: PathBuf,
        ws: Workspace,
    }

    const SECRET: &str = "top secret\n";

    fn fixture() -> Fixture {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("ws");
        let outside = tmp.path().join("outside");
        fs::create_dir(&root).unwrap();
        fs::create_dir(&outside).unwrap();
        fs::write(outside.join("secret.txt"), SECRET).unwrap();
        // A symlinked file and a symlinked directory leading out, both ways.
        symlink(outside.join("secret.txt"), root.join("abs_file")).unwrap();
        symlink("../outside/secret.txt", root.join("rel_file")).unwrap();
        symlink(&outside, root.join("abs_dir")).unwrap();
        symlink("../outside", root.join("rel_dir")).unwrap();
        symlink("/nonexistent-tiss/x", root.join("dangling_out")).unwrap();
        fs::create_dir(root.join("sub")).unwrap();
        symlink("../../outside", root.join("sub/up_dir")).unwrap();
        let ws = Workspace::open(&root).unwrap();
        Fixture { root, outside, ws, _tmp: tmp }
    }

    impl Fixture {
        /// The outside directory holds exactly the secret, unchanged.
        fn outside_untouched(&self) {
            let names: Vec<_> =
                fs::read_dir(&self.outside).unwrap().map(|e| e.unwrap().file_name()).collect();
            assert_eq!(names, ["secret.txt"]);
            assert_eq!(fs::read_to_string(self.outside.join("secret.txt")).unwrap(), SECRET);
        }

        fn entries(&self, dir: &str) -> Vec<String> {
            let mut names: Vec<String> = fs::read_dir(self.root.join(dir))
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect();
            names.sort();
            names
        }
    }

    fn is_security<T: std::fmt::Debug>(result: Result<T, HostError>) -> bool {
        matches!(result, Err(HostError::Security(_)))
    }

    fn command_message<T: std::fmt::Debug>(result: Result<T, HostError>) -> String {
        match result {
            Err(HostError::Command(message)) => message,
            other => panic!("expected a command error, got {other:?}"),
        }
    }

    #[test]
    fn a_trailing_slash_names_a_directory() {
        let f = fixture();
        // Escapes are still security violations first.
        assert!(is_security(f.ws.read("../outside/")));
        assert!(is_security(f.ws.write("abs_dir/", "x", false)));
        fs::write(f.root.join("f.txt"), "hi").unwrap();
        let read = command_message(f.ws.read("f.txt/"));
        assert_eq!(
            read,
            "cannot read `f.txt/`: a path ending in `/` names a directory, not a file; write `f.txt`"
        );
        let write = command_message(f.ws.write("g.txt/", "x", false));
        assert!(write.starts_with("cannot write `g.txt/`"), "{write}");
        assert!(command_message(f.ws.write("sub//", "x", true)).contains("write `sub`"));
        assert_eq!(
            f.entries(""),
            ["abs_dir", "abs_file", "dangling_out", "f.txt", "rel_dir", "rel_file", "sub"]
        );
        assert!(!f.ws.file_test("f.txt/", FileQuery::Exists).unwrap());
        assert!(f.ws.file_test("f.txt", FileQuery::Exists).unwrap());
        assert!(f.ws.file_test("sub/", FileQuery::Exists).unwrap());
    }

    const HOSTILE: &[&str] = &[
        "",
        "/etc/passwd",
        "~/x",
        "..",
        "../outside/secret.txt",
        "a/../../outside/secret.txt",
        "abs_file",
        "rel_file",
        "abs_dir/secret.txt",
        "rel_dir/secret.txt",
        "abs_dir/new.txt",
        "rel_dir/new/deeper.txt",
        "sub/up_dir/secret.txt",
        "sub/up_dir/new.txt",
        "dangling_out",
        "dangling_out/new.txt",
        "sub/../../outside/x",
        "sub/up_dir/../x",
    ];

    #[test]
    fn hostile_reads_are_refused() {
        let f = fixture();
        for path in HOSTILE {
            assert!(is_security(f.ws.read(path)), "READ {path:?}");
        }
    }

    #[test]
    fn hostile_writes_touch_nothing() {
        let f = fixture();
        let before = f.entries("");
        for path in HOSTILE {
            assert!(is_security(f.ws.write(path, "pwned\n", false)), "WRITE {path:?}");
            assert!(is_security(f.ws.write(path, "pwned\n", true)), "APPEND {path:?}");
            f.outside_untouched();
        }
        assert_eq!(f.entries(""), before);
        assert_eq!(f.entries("sub"), ["up_dir"]);
        assert!(!Path::new("/nonexistent-tiss").exists());
    }

    #[test]
    fn hostile_mkdir_delete_tests_and_run_dirs_are_refused() {
        let f = fixture();
        let before = f.entries("");
        for path in HOSTILE {
            assert!(is_security(f.ws.mkdir(path)), "MKDIR {path:?}");
            assert!(is_security(f.ws.file_test(path, FileQuery::Exists)), "FILE EXISTS {path:?}");
            assert!(is_security(f.ws.file_test(path, FileQuery::Contains("secret"))), "CONTAINS {path:?}");
            assert!(is_security(f.ws.dir_for_run(Some(path))), "RUN IN {path:?}");
            f.outside_untouched();
        }
        // DELETE of a link itself is allowed (below); through one, never.
        for path in HOSTILE.iter().filter(|p| p.contains('/') || p.is_empty() || p.starts_with('.')) {
            assert!(is_security(f.ws.delete(path, true)), "DELETE {path:?}");
            f.outside_untouched();
        }
        assert_eq!(f.entries(""), before);
        for dir in ["abs_dir", "rel_dir", "sub/up_dir"] {
            assert!(is_security(f.ws.dir_for_run(Some(dir))), "RUN IN {dir:?}");
        }
    }

    #[test]
    fn deleting_a_link_removes_only_the_link() {
        let f = fixture();
        f.ws.delete("abs_file", false).unwrap();
        f.ws.delete("rel_dir", false).unwrap();
        f.ws.delete("abs_dir", true).unwrap();
        f.ws.delete("dangling_out", false).unwrap();
        f.outside_untouched();
        assert_eq!(f.entries(""), ["rel_file", "sub"]);
        // A recursive delete does not follow links inside the tree either.
        f.ws.delete("sub", true).unwrap();
        f.outside_untouched();
        assert_eq!(f.entries(""), ["rel_file"]);
    }

    #[test]
    fn a_link_planted_by_a_command_is_refused() {
        let f = fixture();
        let secret = f.outside.join("secret.txt");
        let command = format!(
            "ln -s '{}' evil_abs && ln -s ../outside/secret.txt evil_rel && ln -s ../outside evil_dir",
            secret.display()
        );
        let run_dir = f.ws.dir_for_run(None).unwrap();
        let env = vec![("PATH".to_string(), "/usr/bin:/bin".to_string())];
        let spec = crate::host::process::ProcessSpec {
            command: &command,
            cwd: crate::host::process::WorkDir::Held(&run_dir),
            env: &env,
            timeout: Some(std::time::Duration::from_secs(30)),
            output_cap: 1000,
            sandbox: &UNCONFINED,
        };
        let r = crate::host::process::run(&spec, None).unwrap();
        assert_eq!(r.exit_code, 0, "{}", r.stderr);
        for path in ["evil_abs", "evil_rel", "evil_dir/secret.txt", "evil_dir/new.txt"] {
            assert!(is_security(f.ws.write(path, "pwned", false)), "WRITE {path}");
            assert!(is_security(f.ws.write(path, "pwned", true)), "APPEND {path}");
            assert!(is_security(f.ws.read(path)), "READ {path}");
        }
        f.outside_untouched();
    }

    #[test]
    fn links_inside_the_workspace_are_followed() {
        let f = fixture();
        f.ws.write("real/file.txt", "one\n", false).unwrap();
        symlink("real/file.txt", f.root.join("alias")).unwrap();
        symlink("real", f.root.join("real_dir")).unwrap();
        symlink("../real", f.root.join("sub/back")).unwrap();
        assert_eq!(f.ws.read("alias").unwrap(), "one\n");
        f.ws.write("alias", "two\n", false).unwrap();
        f.ws.write("sub/back/file.txt", "three\n", true).unwrap();
        assert_eq!(fs::read_to_string(f.root.join("real/file.txt")).unwrap(), "two\nthree\n");
        assert!(fs::symlink_metadata(f.root.join("alias")).unwrap().file_type().is_symlink());
        f.ws.write("real_dir/new.txt", "new", false).unwrap();
        assert_eq!(fs::read_to_string(f.root.join("real/new.txt")).unwrap(), "new");
        assert!(f.ws.file_test("sub/back/new.txt", FileQuery::Contains("ew")).unwrap());
        let run_dir = f.ws.dir_for_run(Some("sub/back")).unwrap();
        assert_eq!(run_dir.real_path(), f.root.canonicalize().unwrap().join("real"));
        // `..` inside the workspace is fine.
        assert_eq!(f.ws.read("sub/../real/./new.txt").unwrap(), "new");
    }

    #[test]
    fn link_loops_are_a_command_error() {
        let f = fixture();
        symlink("loop_b", f.root.join("loop_a")).unwrap();
        symlink("loop_a", f.root.join("loop_b")).unwrap();
        let message = command_message(f.ws.read("loop_a"));
        assert!(message.contains("symbolic links"), "{message}");
    }

    #[test]
    fn write_is_atomic_and_leaves_no_temporary_file() {
        let f = fixture();
        f.ws.write("a/b/c.txt", "first version, rather long\n", false).unwrap();
        assert_eq!(f.ws.read("a/b/c.txt").unwrap(), "first version, rather long\n");
        let inode = |p: &str| std::os::unix::fs::MetadataExt::ino(&fs::metadata(f.root.join(p)).unwrap());
        let before = inode("a/b/c.txt");
        f.ws.write("a/b/c.txt", "second\n", false).unwrap();
        assert_eq!(f.ws.read("a/b/c.txt").unwrap(), "second\n");
        assert_ne!(inode("a/b/c.txt"), before, "replaced by rename, not rewritten in place");
        assert_eq!(f.entries("a/b"), ["c.txt"]);
        f.ws.write("top.txt", "x", false).unwrap();
        assert_eq!(
            f.entries(""),
            ["a", "abs_dir", "abs_file", "dangling_out", "rel_dir", "rel_file", "sub", "top.txt"]
        );
    }

    #[test]
    fn write_keeps_the_permissions_of_a_replaced_file() {
        use std::os::unix::fs::PermissionsExt;
        let f = fixture();
        f.ws.write("run.sh", "#!/bin/sh\n", false).unwrap();
        fs::set_permissions(f.root.join("run.sh"), fs::Permissions::from_mode(0o750)).unwrap();
        f.ws.write("run.sh", "#!/bin/sh\necho hi\n", false).unwrap();
        assert_eq!(fs::metadata(f.root.join("run.sh")).unwrap().permissions().mode() & 0o777, 0o750);
    }

    #[test]
    fn append_creates_then_extends() {
        let f = fixture();
        f.ws.write("log/out.txt", "one\n", true).unwrap();
        f.ws.write("log/out.txt", "two\n", true).unwrap();
        assert_eq!(f.ws.read("log/out.txt").unwrap(), "one\ntwo\n");
        assert_eq!(f.entries("log"), ["out.txt"]);
    }

    #[test]
    fn writing_a_directory_is_a_command_error() {
        let f = fixture();
        command_message(f.ws.write("sub", "x", false));
        command_message(f.ws.write(".", "x", false));
        command_message(f.ws.write("sub/..", "x", true));
        f.ws.write("file", "x", false).unwrap();
        command_message(f.ws.write("file/inner", "x", false));
    }

    #[test]
    fn read_errors_name_the_path() {
        let f = fixture();
        let message = command_message(f.ws.read("missing/file.txt"));
        assert!(message.contains("`missing/file.txt`"), "{message}");
        fs::write(f.root.join("bin.dat"), b"ok\xff\xfe").unwrap();
        let message = command_message(f.ws.read("bin.dat"));
        assert!(message.contains("`bin.dat`") && message.contains("UTF-8"), "{message}");
        let message = command_message(f.ws.read("sub"));
        assert!(message.contains("directory"), "{message}");
        let message = command_message(f.ws.read("."));
        assert!(message.contains("directory"), "{message}");
    }

    #[test]
    fn mkdir_semantics() {
        let f = fixture();
        f.ws.mkdir("x/y/z").unwrap();
        f.ws.mkdir("x/y/z").unwrap();
        f.ws.mkdir("x/../w").unwrap();
        f.ws.mkdir(".").unwrap();
        assert!(f.root.join("x/y/z").is_dir());
        assert!(f.root.join("w").is_dir());
        f.ws.write("x/file", "", false).unwrap();
        command_message(f.ws.mkdir("x/file"));
    }

    #[test]
    fn delete_semantics() {
        let f = fixture();
        f.ws.write("d/e/f.txt", "x", false).unwrap();
        f.ws.write("g.txt", "x", false).unwrap();
        f.ws.mkdir("empty").unwrap();
        f.ws.delete("g.txt", false).unwrap();
        assert!(!f.root.join("g.txt").exists());
        f.ws.delete("empty", false).unwrap();
        assert!(!f.root.join("empty").exists());
        let message = command_message(f.ws.delete("d", false));
        assert!(message.contains("DELETE \"d\" RECURSIVE"), "{message}");
        assert!(f.root.join("d/e/f.txt").exists());
        f.ws.delete("d", true).unwrap();
        assert!(!f.root.join("d").exists());
        let message = command_message(f.ws.delete("nothing", false));
        assert!(message.contains("`nothing`"), "{message}");
        command_message(f.ws.delete("nothing/deeper", true));
        command_message(f.ws.delete(".", true));
        command_message(f.ws.delete("sub/..", true));
        assert!(f.root.is_dir());
    }

    #[test]
    fn file_test_semantics() {
        let f = fixture();
        f.ws.write("empty.txt", "", false).unwrap();
        f.ws.write("full.txt", "hello world", false).unwrap();
        f.ws.mkdir("empty_dir").unwrap();
        let t = |p: &str, q| f.ws.file_test(p, q).unwrap();
        assert!(t("empty.txt", FileQuery::Exists));
        assert!(t("empty.txt", FileQuery::IsEmpty));
        assert!(!t("full.txt", FileQuery::IsEmpty));
        assert!(t("full.txt", FileQuery::Contains("o w")));
        assert!(t("full.txt", FileQuery::Contains("")));
        assert!(!t("full.txt", FileQuery::Contains("xyz")));
        assert!(t("empty_dir", FileQuery::Exists));
        assert!(t("empty_dir", FileQuery::IsEmpty));
        assert!(!t("sub", FileQuery::IsEmpty));
        assert!(!t("sub", FileQuery::Contains("")));
        assert!(t(".", FileQuery::Exists));
        assert!(!t(".", FileQuery::IsEmpty));
        assert!(t("sub/..", FileQuery::Exists));
        for q in [FileQuery::Exists, FileQuery::IsEmpty, FileQuery::Contains("x")] {
            assert!(!t("missing", q));
            assert!(!t("missing/deeper", q));
        }
    }

    #[test]
    fn contains_finds_a_needle_across_chunks() {
        let mut data = vec![b'a'; 200_000];
        data[65_535..65_540].copy_from_slice(b"NEEDL");
        assert!(stream_contains(&data[..], b"NEEDL").unwrap());
        assert!(!stream_contains(&data[..], b"NEEDLE").unwrap());
        assert!(stream_contains(&b"xyz"[..], b"z").unwrap());
        assert!(!stream_contains(&b""[..], b"z").unwrap());
    }

    #[test]
    fn run_dirs() {
        let f = fixture();
        let canonical = f.root.canonicalize().unwrap();
        let root_dir = f.ws.dir_for_run(None).unwrap();
        assert_eq!(root_dir.real_path(), canonical);
        let sub = f.ws.dir_for_run(Some("sub")).unwrap();
        assert_eq!(sub.real_path(), canonical.join("sub"));
        let env = Vec::new();
        let spec = crate::host::process::ProcessSpec {
            command: "pwd",
            cwd: crate::host::process::WorkDir::Held(&sub),
            env: &env,
            timeout: None,
            output_cap: 1000,
            sandbox: &UNCONFINED,
        };
        let r = crate::host::process::run(&spec, None).unwrap();
        assert_eq!(r.stdout.trim_end(), canonical.join("sub").to_str().unwrap());
        let message = command_message(f.ws.dir_for_run(Some("nope")));
        assert!(message.contains("`nope`"), "{message}");
        f.ws.write("file", "x", false).unwrap();
        command_message(f.ws.dir_for_run(Some("file")));
        assert_eq!(f.ws.dir_for_run(Some(".")).unwrap().real_path(), canonical);
    }

    #[test]
    fn opening_a_missing_workspace_fails() {
        command_message(Workspace::open(Path::new("/nonexistent-tiss/ws")));
    }
}
