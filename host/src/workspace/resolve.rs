//! A plan's path checked lexically, then resolved beneath the workspace
//! directory, symlinks included, without touching anything.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io;
use std::path::{Component, Path, PathBuf};

use cap_std::fs::Dir;

use crate::Error;

/// Symlinks followed while resolving one path (as Linux's `MAXSYMLINKS`).
const MAX_SYMLINKS: u32 = 40;

/// Checks a plan path before any host sees it: relative, no `..` that climbs
/// out, not empty. Symlinks are the host's business (it resolves beneath the
/// workspace). Returns the message of a `security_violation`.
pub fn check_relative(path: &str) -> Result<(), String> {
    if path.is_empty() {
        return Err("the path is empty".to_string());
    }
    if path.starts_with('/') || path.starts_with('~') || path.starts_with('\\') {
        return Err(format!("`{path}` is absolute; paths are relative to the workspace"));
    }
    if path.contains('\0') {
        return Err(format!("`{}` contains a NUL byte", path.escape_debug()));
    }
    let mut depth: i64 = 0;
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                depth -= 1;
                if depth < 0 {
                    return Err(format!("`{path}` leaves the workspace"));
                }
            }
            _ => depth += 1,
        }
    }
    Ok(())
}

/// A path resolved beneath the workspace.
#[derive(Debug, Default)]
pub(super) struct Resolved {
    /// The part that exists: relative to the workspace, no `.`/`..`, no
    /// symlink (except possibly the last component when it was not followed).
    pub(super) existing: PathBuf,
    /// The components that do not exist yet, in order.
    pub(super) missing: Vec<OsString>,
}

impl Resolved {
    pub(super) fn exists(&self) -> bool {
        self.missing.is_empty()
    }

    pub(super) fn full(&self) -> PathBuf {
        let mut path = self.existing.clone();
        path.extend(&self.missing);
        path
    }
}

/// Checks `path` lexically, then resolves it beneath the workspace
/// without touching anything: every existing component is looked at with
/// `lstat`, every symlink read and followed (the last one only when
/// `follow_last`), and anything that would lead outside is refused.
pub(super) fn resolve(dir: &Dir, path: &str, follow_last: bool) -> Result<Resolved, Error> {
    check_relative(path).map_err(Error::Security)?;
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
        match dir.symlink_metadata(&candidate) {
            Ok(meta) if meta.is_symlink() && (follow_last || !queue.is_empty()) => {
                links += 1;
                if links > MAX_SYMLINKS {
                    return Err(Error::Command(format!(
                        "cannot resolve `{path}`: too many levels of symbolic links"
                    )));
                }
                let target = dir.read_link_contents(&candidate).map_err(|e| io_error("resolve", path, e))?;
                if target.has_root() {
                    return Err(Error::Security(format!(
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

/// Splits `path` into normal components and `..`, dropping `.`.
fn push_components(queue: &mut VecDeque<OsString>, path: &Path, shown: &str) -> Result<(), Error> {
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

pub(super) fn escape(path: &str) -> Error {
    Error::Security(format!("`{path}` leads outside the workspace"))
}

/// `cap-std`'s refusal of a path that would escape its directory.
fn is_escape(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::PermissionDenied
        && e.raw_os_error().is_none()
        && e.to_string().contains("outside of the filesystem")
}

pub(super) fn io_error(op: &str, path: &str, e: io::Error) -> Error {
    if is_escape(&e) { escape(path) } else { Error::Command(format!("cannot {op} `{path}`: {e}")) }
}
