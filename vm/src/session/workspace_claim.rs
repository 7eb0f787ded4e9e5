//! The workspace a resumed run uses (book: reference/snapshots.md): a snapshot's stored
//! workspace is a claim, not an authority. A snapshot may come from another
//! user or machine, or be edited, so `tissvm resume` follows the workspace
//! it names only if this user's key signed it (`snapshot::signed_by`);
//! any other needs `--workdir`. Either way the directory must exist and be
//! no system directory, decided on its canonical path (symbolic links and
//! `..` resolved, so `/tmp/../etc` and a link to `/etc` are `/etc`):
//!
//! - the file system's root, and everything in the trees that hold the
//!   system itself: [`SYSTEM_TREES`] (`/etc`, `/usr`, `/dev`, `/proc`, ...);
//! - the directories every user shares, themselves only ([`SHARED`]:
//!   `/tmp`, `/var`, `/home`, ...): a workspace below them is common
//!   (`/tmp/x`, `/var/lib/ci/ws`), one of them is never meant;
//! - the user's home directory itself, where a plan's files would land
//!   among the user's own (`.bashrc`, `.ssh/`).
//!
//! The stored workspace must be an absolute path: it is never resolved
//! against the current directory.

use std::fmt;
use std::path::{Path, PathBuf};

/// Directories that hold the system: neither they nor anything in them is
/// a resumed run's workspace.
pub const SYSTEM_TREES: &[&str] = &[
    "/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/proc", "/sbin", "/sys", "/usr",
];

/// Directories every user shares (and the file system's root): not a
/// workspace themselves, though a directory in them may be.
pub const SHARED: &[&str] =
    &["/", "/home", "/media", "/mnt", "/opt", "/root", "/run", "/srv", "/tmp", "/var", "/var/tmp"];

/// Where a resumed run's workspace comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Basis {
    /// `--workdir`.
    Given,
    /// The snapshot's own: this user's key signed it.
    Signed,
}

impl fmt::Display for Basis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Basis::Given => "from --workdir",
            Basis::Signed => "the snapshot's own, which your key signed",
        })
    }
}

/// Why no workspace can be used without another `--workdir`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The snapshot is not signed by this user's key (`why`, in words),
    /// and no `--workdir` was given.
    Unsigned { claim: PathBuf, why: String },
    /// The snapshot's workspace is not an absolute path.
    Relative { claim: PathBuf },
    /// Not a directory here.
    NotADirectory { path: PathBuf, basis: Basis, error: String },
    /// A system directory or the user's home (`what`, in words).
    System { path: PathBuf, resolved: PathBuf, basis: Basis, what: &'static str },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let named = |basis: &Basis, path: &Path| match basis {
            Basis::Given => format!("--workdir `{}`", path.display()),
            Basis::Signed => format!("the snapshot's workspace `{}`", path.display()),
        };
        match self {
            Refusal::Unsigned { claim, why } => write!(
                f,
                "it is not signed by your snapshot key ({why}), so the workspace it names, `{}`, is only a \
                 claim: a snapshot from elsewhere does not choose where a run writes. Say where to resume it \
                 with --workdir",
                claim.display()
            ),
            Refusal::Relative { claim } => write!(
                f,
                "the snapshot's workspace `{}` is not an absolute path, and is never taken from the current \
                 directory. Say where to resume it with --workdir",
                claim.display()
            ),
            Refusal::NotADirectory { path, basis, error } => {
                write!(f, "{} is not a directory here ({error})", named(basis, path))?;
                match basis {
                    Basis::Given => Ok(()),
                    Basis::Signed => f.write_str(". Say where to resume it with --workdir"),
                }
            }
            Refusal::System { path, resolved, basis, what } => {
                write!(f, "{}", named(basis, path))?;
                if path != resolved {
                    write!(f, " is `{}`, which", resolved.display())?;
                }
                write!(
                    f,
                    " is {what}: a resumed run never takes it as its workspace. Resume it with --workdir naming a \
                     directory of your own"
                )
            }
        }
    }
}

impl std::error::Error for Refusal {}

/// The workspace a resumed run uses (absolute, canonical) and where it
/// comes from: `given` (`--workdir`, made absolute) if there is one, else
/// the snapshot's `claim` if `signed` (`Err`: why the snapshot is not
/// signed by this user's key). `home` is the user's home directory;
/// `allow_system` (`--allow-system-workdir`) lets `given` be a directory
/// otherwise refused.
pub fn choose(
    given: Option<&Path>,
    claim: &Path,
    signed: Result<(), String>,
    home: Option<&Path>,
    allow_system: bool,
) -> Result<(PathBuf, Basis), Refusal> {
    let (path, basis) = match (given, signed) {
        (Some(dir), _) => (dir, Basis::Given),
        (None, Ok(())) if claim.is_absolute() => (claim, Basis::Signed),
        (None, Ok(())) => return Err(Refusal::Relative { claim: claim.to_path_buf() }),
        (None, Err(why)) => return Err(Refusal::Unsigned { claim: claim.to_path_buf(), why }),
    };
    let not_a_dir = |error: String| Refusal::NotADirectory { path: path.to_path_buf(), basis, error };
    let resolved = std::path::absolute(path)
        .and_then(std::fs::canonicalize)
        .map_err(|e| not_a_dir(tiss_support::io_message::io_message(&e)))?;
    if !resolved.is_dir() {
        return Err(not_a_dir("it is not a directory".into()));
    }
    let home = home.and_then(|h| std::fs::canonicalize(h).ok());
    match refused_as(&resolved, home.as_deref()) {
        // `--workdir DIR --allow-system-workdir`: the user's own call.
        Some(_) if allow_system && basis == Basis::Given => Ok((resolved, basis)),
        Some(what) => Err(Refusal::System { path: path.to_path_buf(), resolved, basis, what }),
        None => Ok((resolved, basis)),
    }
}

/// Why the directory `dir` is no run's workspace, if it is not: its
/// canonical path and what makes it none (a fresh run, `tissvm run` and
/// `debug`, goes by the same rules as a resumed one). `home` is the user's
/// home directory.
pub fn refused_fresh(dir: &Path, home: Option<&Path>) -> Option<(PathBuf, &'static str)> {
    let resolved = std::path::absolute(dir).and_then(std::fs::canonicalize).ok()?;
    let home = home.and_then(|h| std::fs::canonicalize(h).ok());
    refused_as(&resolved, home.as_deref()).map(|what| (resolved, what))
}

/// What makes the canonical path `dir` no workspace, if anything.
fn refused_as(dir: &Path, home: Option<&Path>) -> Option<&'static str> {
    if SYSTEM_TREES.iter().any(|tree| dir.starts_with(tree)) {
        Some("a system directory")
    } else if dir == Path::new("/") {
        Some("a system directory (the file system's root)")
    } else if SHARED.iter().any(|shared| dir == Path::new(shared)) {
        Some("a system directory (every user's)")
    } else if home == Some(dir) {
        Some("your home directory itself, where a plan's files would land among yours")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(given: Option<&str>, claim: &str, signed: bool, home: Option<&Path>) -> String {
        let signed = if signed { Ok(()) } else { Err("it is not signed".into()) };
        choose(given.map(Path::new), Path::new(claim), signed, home, false).unwrap_err().to_string()
    }

    #[test]
    fn the_claim_is_followed_only_when_signed() {
        let dir = tempfile::tempdir().unwrap();
        let canonical = dir.path().canonicalize().unwrap();
        let claim = dir.path().to_str().unwrap();
        assert_eq!(choose(None, dir.path(), Ok(()), None, false), Ok((canonical.clone(), Basis::Signed)));
        let text = refusal(None, claim, false, None);
        assert!(text.starts_with("it is not signed by your snapshot key (it is not signed)"), "{text}");
        assert!(text.contains(&format!("`{claim}`")), "{text}");
        // --workdir decides, signed or not; made absolute.
        let sub = canonical.join("sub");
        std::fs::create_dir(&sub).unwrap();
        let unsigned = Err("no".to_string());
        assert_eq!(
            choose(Some(&sub), Path::new("/etc"), unsigned, None, false),
            Ok((sub.clone(), Basis::Given))
        );
        assert_eq!(Basis::Given.to_string(), "from --workdir");
    }

    #[test]
    fn relative_missing_and_system_directories_are_refused() {
        assert_eq!(
            refusal(None, "../../..", true, None),
            "the snapshot's workspace `../../..` is not an absolute path, and is never taken from the current \
             directory. Say where to resume it with --workdir"
        );
        assert!(
            refusal(None, "/no/such/dir", true, None)
                .starts_with("the snapshot's workspace `/no/such/dir` is not a directory here (")
        );
        for dir in ["/etc", "/usr/lib", "/proc/self", "/dev", "/"] {
            let text = refusal(Some(dir), "/x", false, None);
            assert!(text.starts_with(&format!("--workdir `{dir}`")), "{text}");
            assert!(text.contains("is a system directory"), "{text}");
            assert!(
                text.contains("is a system directory")
                    && refusal(None, dir, true, None).contains("system directory")
            );
        }
        let text = refusal(None, "/tmp/../etc", true, None);
        assert!(
            text.starts_with("the snapshot's workspace `/tmp/../etc` is `/etc`, which is a system directory"),
            "{text}"
        );
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink("/usr", &link).unwrap();
        assert!(
            refusal(Some(link.to_str().unwrap()), "/x", true, None)
                .contains("is `/usr`, which is a system directory")
        );
        assert!(refusal(None, "/tmp", true, None).ends_with("(every user's): a resumed run never takes it as its workspace. Resume it with --workdir naming a directory of your own"));
        // The home directory itself, not what is in it.
        let home = dir.path();
        assert!(
            refusal(None, home.to_str().unwrap(), true, Some(home)).contains("your home directory itself")
        );
        let inside = home.join("project");
        std::fs::create_dir(&inside).unwrap();
        assert!(choose(None, &inside, Ok(()), Some(home), false).is_ok());
        let file = home.join("file");
        std::fs::write(&file, "").unwrap();
        assert!(
            refusal(Some(file.to_str().unwrap()), "/x", true, None)
                .ends_with("is not a directory here (it is not a directory)")
        );
    }
}
