//! Workspace confinement (book: reference/sandbox.md): every path a plan names is checked
//! lexically ([`resolve::check_relative`]), then resolved component by component
//! beneath the workspace directory, symlinks included, **before** anything is
//! created, written or removed. A path that leads outside (absolute, `..`
//! climbing out, or a symlink whose target is absolute or climbs out) is a
//! [`Error::Security`]; nothing is touched.
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

pub mod resolve;
pub mod run_dir;
#[cfg(test)]
mod tests;

use std::ffi::OsStr;
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, AsRawFd};
use std::path::{Path, PathBuf};

use cap_std::ambient_authority;
use cap_std::fs::Dir;

use crate::Error;
use crate::temp_files::TempFile;
use crate::workspace::resolve::{Resolved, io_error};
use crate::workspace::run_dir::{HeldDir, RunDir};

/// The most bytes a READ takes (64 MiB).
pub const MAX_READ: u64 = 64 << 20;

/// A file test of a condition: FILE path EXISTS / IS_EMPTY / CONTAINS.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileQuery<'a> {
    Exists,
    IsEmpty,
    Contains(&'a str),
}

/// The plan's workspace directory.
#[derive(Debug)]
pub struct Workspace {
    dir: Dir,
    /// Absolute and canonical.
    root: PathBuf,
    /// tissvm's files that it writes as the run goes (the journal, the log
    /// file, the checkpoint): their link-free paths in the workspace, their
    /// device and inode where one file holds it all along (not the
    /// checkpoint, replaced each time), and what they are. The plan's own
    /// statements may read them, never replace, append to or delete them.
    kept: Vec<Kept>,
}

/// A file of tissvm's in the workspace ([`Workspace::keep`]).
#[derive(Debug)]
struct Kept {
    /// Link-free, in the workspace.
    path: PathBuf,
    /// Its device and inode, where one file holds it all along.
    node: Option<(u64, u64)>,
    /// `"this run's journal"`.
    what: &'static str,
}

impl Workspace {
    /// Opens the workspace at `root` (an existing directory).
    pub fn open(root: &Path) -> Result<Workspace, Error> {
        let fail =
            |e: io::Error| Error::Command(format!("cannot open the workspace `{}`: {e}", root.display()));
        let canonical = std::fs::canonicalize(root).map_err(fail)?;
        let dir = Dir::open_ambient_dir(&canonical, ambient_authority()).map_err(fail)?;
        Ok(Workspace { dir, root: canonical, kept: Vec::new() })
    }

    /// Keeps the file at `path` (absolute and link-free, as [`own_path`]
    /// gives it), `what` (`"this run's journal"`), from the plan's own
    /// statements, if it lies in the workspace.
    pub fn keep(&mut self, path: &Path, what: &'static str) {
        use std::os::unix::fs::MetadataExt;
        let (Ok(rel), Ok(meta)) = (path.strip_prefix(&self.root), std::fs::metadata(path)) else { return };
        self.kept.push(Kept { path: rel.to_path_buf(), node: Some((meta.dev(), meta.ino())), what });
    }

    /// [`Workspace::keep`] by the name alone, for a file tissvm replaces
    /// whole each time it writes it (the checkpoint): it may not exist yet.
    pub fn keep_name(&mut self, path: &Path, what: &'static str) {
        if let Ok(rel) = path.strip_prefix(&self.root) {
            self.kept.push(Kept { path: rel.to_path_buf(), node: None, what });
        }
    }

    /// The kept files whose path no longer names them (a command moved the
    /// directory holding one, or removed it): their paths and what they are.
    pub fn moved_records(&self) -> Vec<(PathBuf, &'static str)> {
        use std::os::unix::fs::MetadataExt;
        self.kept
            .iter()
            .filter_map(|kept| Some((self.root.join(&kept.path), kept.node?, kept.what)))
            .filter(|(path, id, _)| std::fs::metadata(path).map(|m| (m.dev(), m.ino())).ok() != Some(*id))
            .map(|(path, _, what)| (path, what))
            .collect()
    }

    /// Refuses a statement that would change a kept file: `target` (the
    /// link-free path in the workspace) names it, or holds it (`holds`:
    /// DELETE of a directory), or the file there is it (`node`: APPEND
    /// through another name of it).
    fn leaves_kept(
        &self,
        path: &str,
        target: &Path,
        holds: bool,
        node: Option<(u64, u64)>,
    ) -> Result<(), Error> {
        for Kept { path: kept, node: id, what } in &self.kept {
            let is = if kept == target || (id.is_some() && node == *id) {
                "is"
            } else if holds && kept.starts_with(target) {
                "holds"
            } else {
                continue;
            };
            return Err(Error::Security(format!(
                "`{path}` {is} {what}, which tissvm writes as the run goes: a plan may read it, not change it"
            )));
        }
        Ok(())
    }

    /// The workspace's absolute, canonical path.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// READ: the file's text. A missing, non-regular or non-UTF-8 file is a
    /// command error.
    pub fn read(&self, path: &str) -> Result<String, Error> {
        let resolved = self.resolve(path, true)?;
        not_a_directory_path("read", path)?;
        if !resolved.exists() {
            return Err(Error::Command(format!("cannot read `{path}`: no such file")));
        }
        let bytes = self.read_bytes(path, &resolved.existing)?;
        String::from_utf8(bytes).map_err(|e| {
            Error::Command(format!(
                "cannot read `{path}`: not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ))
        })
    }

    /// WRITE / APPEND, atomically, creating parent directories.
    pub fn write(&self, path: &str, content: &str, append: bool) -> Result<(), Error> {
        let resolved = self.resolve(path, true)?;
        not_a_directory_path("write", path)?;
        let target = resolved.full();
        let (Some(parent), Some(name)) = (target.parent(), target.file_name()) else {
            return Err(Error::Command(format!("cannot write `{path}`: it is the workspace directory")));
        };
        // APPEND copies what the file holds into the new file as it goes,
        // never holding it whole.
        let mut existing = None;
        let mut permissions = None;
        self.leaves_kept(path, &target, false, None)?;
        if resolved.exists() {
            let meta = self.metadata(&target).map_err(|e| io_error("write", path, e))?;
            if append {
                use cap_std::fs::MetadataExt;
                self.leaves_kept(path, &target, false, Some((meta.dev(), meta.ino())))?;
            }
            if meta.is_dir() {
                return Err(Error::Command(format!("cannot write `{path}`: it is a directory")));
            }
            if !meta.is_file() {
                return Err(Error::Command(format!("cannot write `{path}`: not a regular file")));
            }
            permissions = Some(meta.permissions());
            if append {
                existing = Some(self.open_regular(path, &target)?);
            }
        }

        let parent_dir = if parent.as_os_str().is_empty() {
            self.dir.try_clone()
        } else {
            self.dir.create_dir_all(parent).and_then(|()| self.dir.open_dir(parent))
        }
        .map_err(|e| io_error("write", path, e))?;
        atomic_replace(&parent_dir, name, existing, content.as_bytes(), permissions)
            .map_err(|e| io_error("write", path, e))
    }

    /// MKDIR: the directory and its parents; no error if it exists.
    pub fn mkdir(&self, path: &str) -> Result<(), Error> {
        let resolved = self.resolve(path, true)?;
        if resolved.exists() {
            let meta = self.metadata(&resolved.existing).map_err(|e| io_error("create", path, e))?;
            if meta.is_dir() {
                return Ok(());
            }
            return Err(Error::Command(format!(
                "cannot create the directory `{path}`: a file of that name exists"
            )));
        }
        self.dir.create_dir_all(resolved.full()).map_err(|e| io_error("create the directory", path, e))
    }

    /// DELETE: a file, a symlink (the link itself), an empty directory, or
    /// with `recursive` a directory and everything in it. A missing path is a
    /// command error.
    pub fn delete(&self, path: &str, recursive: bool) -> Result<(), Error> {
        let resolved = self.resolve(path, false)?;
        if !resolved.exists() {
            return Err(Error::Command(format!("cannot delete `{path}`: no such file or directory")));
        }
        let target = &resolved.existing;
        if target.as_os_str().is_empty() {
            return Err(Error::Command(format!("cannot delete `{path}`: it is the workspace itself")));
        }
        let meta = self.dir.symlink_metadata(target).map_err(|e| io_error("delete", path, e))?;
        self.leaves_kept(path, target, meta.is_dir(), None)?;
        let result = if !meta.is_dir() {
            self.dir.remove_file(target)
        } else if recursive {
            self.dir.remove_dir_all(target)
        } else {
            self.dir.remove_dir(target)
        };
        result.map_err(|e| {
            if e.kind() == io::ErrorKind::DirectoryNotEmpty {
                Error::Command(format!(
                    "cannot delete `{path}`: the directory is not empty (use `DELETE \"{path}\" RECURSIVE`)"
                ))
            } else {
                io_error("delete", path, e)
            }
        })
    }

    /// FILE path EXISTS / IS_EMPTY / CONTAINS. A missing path is false.
    pub fn file_test(&self, path: &str, query: FileQuery<'_>) -> Result<bool, Error> {
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

    /// A directory of tissvm's own beneath the workspace (`.tiss`, where a
    /// suspended run's snapshots go), made if missing, and its path, which
    /// then holds no link: it is reached as a plan's paths are, so a link a
    /// command made that leads out is refused ([`Error::Security`]) rather
    /// than followed by tissvm, which no sandbox confines.
    pub fn own_dir(&self, path: &str) -> Result<PathBuf, Error> {
        let resolved = self.resolve(path, true)?;
        let rel = resolved.full();
        if rel.as_os_str().is_empty() {
            return Ok(self.root.clone());
        }
        self.dir.create_dir_all(&rel).map_err(|e| io_error("create the directory", path, e))?;
        let meta = self.dir.symlink_metadata(&rel).map_err(|e| io_error("create the directory", path, e))?;
        if !meta.is_dir() {
            return Err(Error::Command(format!("`{path}` is not a directory")));
        }
        Ok(self.root.join(rel))
    }

    /// The working directory for a RUN: the workspace, or `IN path` beneath
    /// it, which must be an existing directory.
    pub fn dir_for_run(&self, path: Option<&str>) -> Result<RunDir<'_>, Error> {
        let (dir, rel) = match path {
            None => (Ok(HeldDir::Workspace(&self.dir)), PathBuf::new()),
            Some(path) => {
                let resolved = self.resolve(path, true)?;
                if !resolved.exists() {
                    return Err(Error::Command(format!("the directory `{path}` does not exist")));
                }
                let rel = resolved.existing;
                let meta = self.metadata(&rel).map_err(|e| io_error("enter", path, e))?;
                if !meta.is_dir() {
                    return Err(Error::Command(format!("`{path}` is not a directory")));
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

    /// Reads a resolved regular file of at most [`MAX_READ`] bytes: a plan's
    /// command can make a file of any size (a sparse one costs nothing), and
    /// tissvm, which no sandbox's memory limit holds, would take it whole.
    fn read_bytes(&self, path: &str, target: &Path) -> Result<Vec<u8>, Error> {
        let mut file = self.open_regular(path, target)?;
        let mut bytes = Vec::new();
        let size = file.metadata().map_err(|e| io_error("read", path, e))?.len();
        if size <= MAX_READ {
            (&mut file).take(MAX_READ + 1).read_to_end(&mut bytes).map_err(|e| io_error("read", path, e))?;
        }
        if size > MAX_READ || bytes.len() as u64 > MAX_READ {
            return Err(Error::Command(format!(
                "cannot read `{path}`: it is larger than the {} MiB a READ takes; read a part of it with a \
                 RUN (`head -c 1000000 {path}`) and its LAST_RUN.STDOUT",
                MAX_READ >> 20
            )));
        }
        Ok(bytes)
    }

    /// Opens a resolved regular file for reading.
    fn open_regular(&self, path: &str, target: &Path) -> Result<cap_std::fs::File, Error> {
        let meta = self.metadata(target).map_err(|e| io_error("read", path, e))?;
        if meta.is_dir() {
            return Err(Error::Command(format!("cannot read `{path}`: it is a directory")));
        }
        if !meta.is_file() {
            return Err(Error::Command(format!("cannot read `{path}`: not a regular file")));
        }
        self.dir.open(target).map_err(|e| io_error("read", path, e))
    }

    fn resolve(&self, path: &str, follow_last: bool) -> Result<Resolved, Error> {
        resolve::resolve(&self.dir, path, follow_last)
    }
}

/// Where tissvm may open a file of its own named by a path (the log a run
/// appends to, a cassette, a report): the path as given when it lies outside
/// the workspace `root`; beneath it, the path reached as a plan's paths are,
/// so that a link a command made (the file itself or a directory on its way)
/// cannot lead tissvm, which no sandbox confines, out of the workspace: that
/// is an [`Error::Security`]. The path returned then holds no link.
pub fn own_path(root: &Path, path: &Path) -> Result<PathBuf, Error> {
    let workspace = Workspace::open(root)?;
    let Some(rel) = within(&workspace, root, path)? else { return Ok(path.to_path_buf()) };
    let Some(rel) = rel.to_str() else {
        return Err(Error::Command(format!("`{}` is not a UTF-8 path", path.display())));
    };
    if rel.is_empty() {
        return Ok(workspace.root);
    }
    let resolved = workspace.resolve(rel, true)?;
    Ok(workspace.root.join(resolved.full()))
}

/// Whether `path` lies in the workspace `root` (as written: a link on its
/// way is not followed to find out).
pub fn lies_in(root: &Path, path: &Path) -> bool {
    Workspace::open(root).is_ok_and(|workspace| within(&workspace, root, path).is_ok_and(|rel| rel.is_some()))
}

/// `path` relative to the workspace, if it lies in it, `..` taken lexically
/// as the caller wrote it (`ws/../out.json` is not in `ws`).
fn within(workspace: &Workspace, root: &Path, path: &Path) -> Result<Option<PathBuf>, Error> {
    let fail = |e: io::Error| Error::Command(format!("cannot reach `{}`: {e}", path.display()));
    let mut absolute = PathBuf::new();
    for part in std::path::absolute(path).map_err(fail)?.components() {
        match part {
            std::path::Component::ParentDir => {
                absolute.pop();
            }
            part => absolute.push(part),
        }
    }
    let given = std::path::absolute(root).map_err(fail)?;
    let rel = absolute.strip_prefix(&workspace.root).or_else(|_| absolute.strip_prefix(&given));
    Ok(rel.ok().map(Path::to_path_buf))
}

/// A path ending in `/` names a directory, which READ, WRITE and APPEND
/// cannot take (the system's own path lookup would refuse `file.txt/` too;
/// splitting the path into components would silently drop the slash).
fn not_a_directory_path(action: &str, path: &str) -> Result<(), Error> {
    let Some(file) = path.strip_suffix('/') else { return Ok(()) };
    let file = file.trim_end_matches('/');
    Err(Error::Command(if file.is_empty() {
        format!("cannot {action} `{path}`: it names a directory, not a file")
    } else {
        format!(
            "cannot {action} `{path}`: a path ending in `/` names a directory, not a file; write `{file}`"
        )
    }))
}

/// Writes `before` (what an APPEND keeps) and `data` to a new temporary file
/// in `dir` (`temp_files.rs`: with no name while it is written), syncs it,
/// renames it over `name` and syncs `dir`. Nothing of it is left on failure.
fn atomic_replace(
    dir: &Dir,
    name: &OsStr,
    before: Option<cap_std::fs::File>,
    data: &[u8],
    permissions: Option<cap_std::fs::Permissions>,
) -> io::Result<()> {
    let mut temp = TempFile::create(dir)?;
    let written = (|| {
        if let Some(mut before) = before {
            io::copy(&mut before, &mut temp.file)?;
        }
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

/// Whether the regular file `file` contains `needle`, read in chunks so a
/// large file is never held whole, in time linear in the file however long
/// the needle (`memmem`). A needle without a NUL byte cannot meet a hole of
/// a sparse file (holes read as zeros), so only the file's data is read:
/// a command can make a terabyte of holes for nothing.
fn stream_contains(file: cap_std::fs::File, needle: &[u8]) -> io::Result<bool> {
    if needle.is_empty() {
        return Ok(true);
    }
    let mut file = file.into_std();
    let finder = memchr::memmem::Finder::new(needle);
    if needle.contains(&0) {
        return region_contains(&mut file, u64::MAX, &finder);
    }
    let mut at = 0u64;
    loop {
        let data = match rustix::fs::seek(&file, rustix::fs::SeekFrom::Data(at)) {
            Ok(data) => data,
            // Past the last data.
            Err(rustix::io::Errno::NXIO) => return Ok(false),
            // A file system that cannot tell: all of it.
            Err(_) => {
                std::io::Seek::seek(&mut file, io::SeekFrom::Start(0))?;
                return region_contains(&mut file, u64::MAX, &finder);
            }
        };
        let hole = rustix::fs::seek(&file, rustix::fs::SeekFrom::Hole(data)).map_err(io::Error::from)?;
        std::io::Seek::seek(&mut file, io::SeekFrom::Start(data))?;
        if region_contains(&mut file, hole - data, &finder)? {
            return Ok(true);
        }
        at = hole;
    }
}

/// Whether the next `len` bytes of `reader` (or all that is left) contain
/// the finder's needle; a match may straddle two chunks.
fn region_contains(
    reader: &mut impl Read,
    len: u64,
    finder: &memchr::memmem::Finder<'_>,
) -> io::Result<bool> {
    let needle = finder.needle().len();
    let chunk = 64 * 1024;
    let keep = needle - 1;
    let mut window: Vec<u8> = Vec::with_capacity(chunk + keep);
    let mut buf = vec![0u8; chunk];
    let mut reader = reader.take(len);
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => return Ok(false),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        window.extend_from_slice(&buf[..n]);
        if finder.find(&window).is_some() {
            return Ok(true);
        }
        if window.len() > keep {
            window.drain(..window.len() - keep);
        }
    }
}
