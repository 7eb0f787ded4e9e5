//! The directory a RUN works in, held open beneath the workspace.

use std::os::fd::AsFd;
use std::path::{Path, PathBuf};

use cap_std::fs::Dir;

/// A working directory for a RUN, guaranteed to lie beneath the workspace
/// while this value lives (it holds the directory open).
#[derive(Debug)]
pub struct RunDir<'w> {
    /// The directory `cwd` names: the workspace's own for the workspace
    /// itself (no descriptor to duplicate per RUN), else one opened for it.
    /// The child enters it by this descriptor (`fchdir`), so a rename or a
    /// symlink planted after the check cannot redirect it.
    pub(super) dir: HeldDir<'w>,
    pub(super) real: PathBuf,
}

/// The directory a [`RunDir`] keeps open while its RUN runs.
#[derive(Debug)]
pub(super) enum HeldDir<'w> {
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
