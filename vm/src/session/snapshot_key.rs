//! The per-user key that signs snapshots (book: reference/snapshots.md) and journals (book: cookbook/journal.md): 32 random bytes in a
//! private file, `$TISS_SNAPSHOT_KEY_FILE`, else
//! `$XDG_CONFIG_HOME/tisslang/snapshot.key`, else
//! `$HOME/.config/tisslang/snapshot.key`. A snapshot this user's tissvm
//! writes carries an HMAC-SHA256 under it (`snapshot.rs`), so `tissvm
//! resume` can tell its own snapshots, whose stored workspace it follows,
//! from any other, which needs `--workdir`.
//!
//! The key is made the first time a snapshot is written: its directory
//! (mode 0700 where it is new), a temporary file of mode 0600 holding the
//! bytes, hard-linked to the key's name, which fails if that exists — so
//! two tissvms racing to make it end with one key, both using it. A key
//! file that is not a regular file of 32 bytes, belongs to another user or
//! can be read or written by others is not used: nothing is signed with it
//! and nothing counts as signed by it (the caller says so and goes on
//! unsigned, never losing a snapshot).

use std::ffi::OsString;
use std::fmt;
use std::fs::{self, File};
use std::io::{self, Read};
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};

use hmac::Hmac;
use hmac::digest::KeyInit;
use sha2::Sha256;
use tiss_support::atomic_write::{parent_of, sync_dir, write_temp};
use tiss_support::shell::quote::shell_word;

/// The environment variable naming the key file, in place of the one in the
/// user's configuration directory.
pub const KEY_FILE_VAR: &str = "TISS_SNAPSHOT_KEY_FILE";

/// The key's length in bytes (HMAC-SHA256's block size is larger; 32 is
/// its output size, and as much as it can use).
pub const KEY_LEN: usize = 32;

/// A user's snapshot key. Its bytes are never printed.
#[derive(Clone, PartialEq, Eq)]
pub struct SnapshotKey([u8; KEY_LEN]);

impl SnapshotKey {
    /// A key of these bytes (tests; a real key comes from [`KeyFile`]).
    pub fn from_bytes(bytes: [u8; KEY_LEN]) -> SnapshotKey {
        SnapshotKey(bytes)
    }

    /// An HMAC-SHA256 under this key, to which the signed bytes are added:
    /// what signs snapshots and journal frames.
    pub(crate) fn hmac(&self) -> Hmac<Sha256> {
        // A key shorter than the hash's block is zero-padded to it (RFC 2104),
        // which `new` takes as it stands.
        let mut block = [0u8; 64];
        block[..KEY_LEN].copy_from_slice(&self.0);
        <Hmac<Sha256> as KeyInit>::new(&block.into())
    }
}

impl fmt::Debug for SnapshotKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SnapshotKey(..)")
    }
}

/// Why there is no key to sign with or to check against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyError {
    /// None of `TISS_SNAPSHOT_KEY_FILE`, `XDG_CONFIG_HOME` (absolute) and
    /// `HOME` is set.
    NoLocation,
    /// Not a regular file.
    NotAFile { path: PathBuf },
    /// Owned by another user.
    NotOwned { path: PathBuf, owner: u32 },
    /// Group or others may read or write it.
    Exposed { path: PathBuf, mode: u32 },
    /// Not [`KEY_LEN`] bytes long.
    Length { path: PathBuf, len: u64 },
    /// It could not be read, or made.
    Io { path: PathBuf, doing: &'static str, error: String },
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let quoted = |p: &Path| shell_word(&p.display().to_string());
        match self {
            KeyError::NoLocation => write!(
                f,
                "there is no snapshot key: none of {KEY_FILE_VAR}, XDG_CONFIG_HOME and HOME is set (set \
                 {KEY_FILE_VAR}=FILE to keep one)"
            ),
            KeyError::NotAFile { path } => {
                write!(f, "the snapshot key `{}` is not a regular file; remove it", path.display())
            }
            KeyError::NotOwned { path, owner } => write!(
                f,
                "the snapshot key `{}` belongs to another user (uid {owner}), so it is not used; remove it: \
                 `rm {}` (a new key is made with the next snapshot)",
                path.display(),
                quoted(path)
            ),
            KeyError::Exposed { path, mode } => write!(
                f,
                "the snapshot key `{}` can be read or changed by other users (mode {:04o}), so it is not used; \
                 make it private: `chmod 600 {}` (or, if someone else may have read it, remove it: a new key is \
                 made with the next snapshot)",
                path.display(),
                mode & 0o7777,
                quoted(path)
            ),
            KeyError::Length { path, len } => write!(
                f,
                "the snapshot key `{}` is {len} bytes, not {KEY_LEN}, so it is not used; remove it: `rm {}` (a \
                 new key is made with the next snapshot)",
                path.display(),
                quoted(path)
            ),
            KeyError::Io { path, doing, error } => {
                write!(f, "cannot {doing} the snapshot key `{}`: {error}", path.display())
            }
        }
    }
}

impl std::error::Error for KeyError {}

/// This user's key, to check a snapshot's or a journal's signature against
/// (not made if there is none: then this user signed nothing); `Err` says
/// why there is none, as the reason a file is not signed by it.
pub fn user_key() -> Result<SnapshotKey, String> {
    match KeyFile::locate().and_then(|file| file.load().map(|key| (file, key))) {
        Ok((_, Some(key))) => Ok(key),
        Ok((file, None)) => {
            Err(format!("you have no snapshot key yet: `{}` does not exist", file.path.display()))
        }
        Err(e) => Err(e.to_string()),
    }
}

/// Where this user's snapshot key is kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyFile {
    pub path: PathBuf,
}

impl KeyFile {
    /// The key file named by the environment: `$TISS_SNAPSHOT_KEY_FILE`,
    /// else `$XDG_CONFIG_HOME/tisslang/snapshot.key` (an absolute
    /// `XDG_CONFIG_HOME` only, as the XDG specification says), else
    /// `$HOME/.config/tisslang/snapshot.key`.
    pub fn locate() -> Result<KeyFile, KeyError> {
        KeyFile::locate_with(|name| std::env::var_os(name))
    }

    /// [`KeyFile::locate`] with the environment given as a function.
    pub fn locate_with(var: impl Fn(&str) -> Option<OsString>) -> Result<KeyFile, KeyError> {
        let set = |name| var(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        if let Some(path) = set(KEY_FILE_VAR) {
            return Ok(KeyFile { path });
        }
        let config = set("XDG_CONFIG_HOME")
            .filter(|p| p.is_absolute())
            .or_else(|| set("HOME").map(|home| home.join(".config")))
            .ok_or(KeyError::NoLocation)?;
        Ok(KeyFile { path: config.join("tisslang").join("snapshot.key") })
    }

    /// The key, if the file exists (`Ok(None)` if it does not: this user
    /// has signed no snapshot with it).
    pub fn load(&self) -> Result<Option<SnapshotKey>, KeyError> {
        let path = &self.path;
        let io_error =
            |e: io::Error| KeyError::Io { path: path.clone(), doing: "read", error: e.to_string() };
        let mut file = match File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io_error(e)),
        };
        let meta = file.metadata().map_err(io_error)?;
        if !meta.is_file() {
            return Err(KeyError::NotAFile { path: path.clone() });
        }
        // SAFETY: geteuid has no preconditions and cannot fail.
        let me = unsafe { libc::geteuid() };
        if meta.uid() != me {
            return Err(KeyError::NotOwned { path: path.clone(), owner: meta.uid() });
        }
        if meta.mode() & 0o077 != 0 {
            return Err(KeyError::Exposed { path: path.clone(), mode: meta.mode() });
        }
        let mut bytes = Vec::with_capacity(KEY_LEN + 1);
        file.by_ref().take(KEY_LEN as u64 + 1).read_to_end(&mut bytes).map_err(io_error)?;
        let key: [u8; KEY_LEN] = bytes
            .as_slice()
            .try_into()
            .map_err(|_| KeyError::Length { path: path.clone(), len: meta.len() })?;
        Ok(Some(SnapshotKey(key)))
    }

    /// The key, made now if there is none yet (see the module
    /// documentation): what a snapshot about to be written is signed with.
    pub fn load_or_create(&self) -> Result<SnapshotKey, KeyError> {
        if let Some(key) = self.load()? {
            return Ok(key);
        }
        let path = &self.path;
        let failed = |e: io::Error| KeyError::Io { path: path.clone(), doing: "make", error: e.to_string() };
        let mut bytes = [0u8; KEY_LEN];
        getrandom::fill(&mut bytes).map_err(|e| failed(io::Error::other(e.to_string())))?;
        let dir = parent_of(path);
        fs::DirBuilder::new().recursive(true).mode(0o700).create(dir).map_err(failed)?;
        let temp = write_temp(dir, &bytes, Some(0o600)).map_err(failed)?;
        let placed = match fs::hard_link(&temp, path) {
            // Another tissvm made it first: its key is the one.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
            // A file system without hard links: rename, unless it is there.
            Err(_) if !path.exists() => fs::rename(&temp, path),
            other => other,
        };
        let _ = fs::remove_file(&temp);
        placed.and_then(|()| sync_dir(dir)).map_err(failed)?;
        self.load()?.ok_or_else(|| failed(io::Error::other("it is gone as soon as it was made")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |name| vars.iter().find(|(n, _)| *n == name).map(|(_, v)| OsString::from(v))
    }

    #[test]
    fn the_key_file_is_found_where_the_environment_says() {
        let at = |vars: &[(&str, &str)]| KeyFile::locate_with(env(vars)).map(|k| k.path);
        let all = [(KEY_FILE_VAR, "/k/key"), ("XDG_CONFIG_HOME", "/x"), ("HOME", "/h")];
        assert_eq!(at(&all), Ok(PathBuf::from("/k/key")));
        assert_eq!(at(&all[1..]), Ok(PathBuf::from("/x/tisslang/snapshot.key")));
        assert_eq!(at(&all[2..]), Ok(PathBuf::from("/h/.config/tisslang/snapshot.key")));
        // A relative or empty XDG_CONFIG_HOME is ignored, as XDG says.
        assert_eq!(
            at(&[("XDG_CONFIG_HOME", "rel"), ("HOME", "/h")]),
            Ok(PathBuf::from("/h/.config/tisslang/snapshot.key"))
        );
        assert_eq!(at(&[(KEY_FILE_VAR, ""), ("XDG_CONFIG_HOME", "")]), Err(KeyError::NoLocation));
        assert!(KeyError::NoLocation.to_string().contains(KEY_FILE_VAR));
    }

    #[test]
    fn the_key_is_made_once_private_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let file = KeyFile { path: dir.path().join("new/tisslang/snapshot.key") };
        assert_eq!(file.load(), Ok(None));
        let key = file.load_or_create().unwrap();
        assert_eq!(file.load_or_create().unwrap(), key, "made once");
        assert_eq!(file.load(), Ok(Some(key.clone())));
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&file.path), 0o600);
        assert_eq!(mode(file.path.parent().unwrap()), 0o700);
        let names: Vec<_> = fs::read_dir(file.path.parent().unwrap()).unwrap().flatten().collect();
        assert_eq!(names.len(), 1, "no temporary file is left");
        assert_ne!(KeyFile { path: dir.path().join("other.key") }.load_or_create().unwrap(), key);
        assert_eq!(format!("{key:?}"), "SnapshotKey(..)");
    }

    #[test]
    fn racing_makers_end_with_one_key() {
        let dir = tempfile::tempdir().unwrap();
        let file = KeyFile { path: dir.path().join("k/snapshot.key") };
        let keys: Vec<SnapshotKey> = std::thread::scope(|s| {
            let makers: Vec<_> = (0..8).map(|_| s.spawn(|| file.load_or_create().unwrap())).collect();
            makers.into_iter().map(|m| m.join().unwrap()).collect()
        });
        assert!(keys.iter().all(|k| *k == keys[0]));
        assert_eq!(fs::read_dir(dir.path().join("k")).unwrap().count(), 1);
    }

    #[test]
    fn an_exposed_foreign_or_damaged_key_is_not_used() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("snapshot.key");
        let file = KeyFile { path: path.clone() };
        file.load_or_create().unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        let e = file.load().unwrap_err();
        assert_eq!(e, KeyError::Exposed { path: path.clone(), mode: 0o100644 });
        assert!(e.to_string().contains(&format!("`chmod 600 {}`", path.display())), "{e}");
        assert_eq!(file.load_or_create(), Err(e), "an exposed key is not replaced either");
        fs::write(&path, b"short").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        assert_eq!(file.load(), Err(KeyError::Length { path: path.clone(), len: 5 }));
        fs::remove_file(&path).unwrap();
        fs::create_dir(&path).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o700)).unwrap();
        assert_eq!(file.load(), Err(KeyError::NotAFile { path: path.clone() }));
        // Another user's (only root can give a file away to check it).
        fs::remove_dir(&path).unwrap();
        file.load_or_create().unwrap();
        if std::os::unix::fs::chown(&path, Some(4242), None).is_ok() {
            assert_eq!(file.load(), Err(KeyError::NotOwned { path: path.clone(), owner: 4242 }));
        }
    }
}
