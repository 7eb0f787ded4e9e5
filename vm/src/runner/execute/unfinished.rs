//! What a run's project files stood as, kept outside its workspace while it
//! runs, so that they are put back even if tissvm never gets to do it
//! itself (book: reference/sandbox.md, "tissvm's own files"). A run keeps
//! its watched files in memory and puts back what its commands changed when
//! the plan stops (`project_file.rs`); killed first (SIGKILL: a CI job
//! cancelled, the OOM killer, or under `standard` a command of the plan's
//! own), it put back nothing, and the next run read the plan's `tiss.toml`.
//!
//! So each run also writes them to a record in this user's state directory
//! (`$XDG_STATE_HOME/tisslang/unfinished`, else
//! `~/.local/state/tisslang/unfinished`, else, where that cannot be made,
//! `$TMPDIR/tisslang-UID/unfinished`; private, and outside what a `strict`
//! RUN may write), holds an exclusive `flock` on it while it runs,
//! and removes it when it has looked at the files. Every tissvm that reads
//! them first looks for records no one holds (the kernel releases a lock
//! when its holder dies, however it dies) and puts back what they keep.

use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

/// The largest record read back: the watched files are settings and
/// answers files, each at most a few MiB.
const MAX_RECORD: u64 = 64 << 20;

/// A record being written carries this prefix until it is whole; one left
/// behind by a tissvm that died while writing it is removed after this long.
const PARTIAL: &str = ".partial-";
const PARTIAL_AGE: Duration = Duration::from_secs(3600);

/// What the record of one run keeps: its workspace, and each watched file
/// as it stood (paths as bytes: they need not be UTF-8).
#[derive(Clone, Default, Serialize, Deserialize)]
pub struct Kept {
    /// The machine the run ran on: only a tissvm there can tell whether
    /// the run lives (a lock on a home shared over NFS may not be seen
    /// from other machines).
    pub host: Vec<u8>,
    pub workspace: Vec<u8>,
    pub files: Vec<KeptFile>,
}

/// This machine's name, as records keep it.
pub fn this_host() -> Vec<u8> {
    rustix::system::uname().nodename().to_bytes().to_vec()
}

#[derive(Clone, Serialize, Deserialize)]
pub struct KeptFile {
    pub path: Vec<u8>,
    pub state: KeptState,
    /// What the file is to tissvm (`project_file::Watched`, by number).
    pub what: u8,
}

/// What stood at a watched file's name.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub enum KeptState {
    Absent,
    File(Vec<u8>),
    /// A symbolic link, and where it pointed.
    Link(Vec<u8>),
}

/// The record of a run in progress: removed by [`Record::done`]; while this
/// lives, its lock tells every other tissvm that its owner is alive.
pub struct Record {
    path: PathBuf,
    _locked: File,
}

impl Record {
    /// Writes `kept` to a new record, locked before it has its name.
    pub fn write(kept: &Kept) -> Result<Record, String> {
        let mut why = String::from("neither XDG_STATE_HOME nor HOME is set");
        for dir in records_dirs() {
            match Record::write_in(&dir, kept) {
                Ok(record) => return Ok(record),
                Err(e) => why = e,
            }
        }
        Err(why)
    }

    fn write_in(dir: &Path, kept: &Kept) -> Result<Record, String> {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|e| format!("cannot make `{}`: {e}", dir.display()))?;
        private_dir(dir)?;
        private_dir(dir.parent().unwrap_or(dir))?;
        let bytes =
            bincode::serde::encode_to_vec(kept, bincode::config::standard()).map_err(|e| e.to_string())?;
        if bytes.len() as u64 > MAX_RECORD {
            return Err(format!("the files are {} bytes, more than a record holds", bytes.len()));
        }
        let failed = |e: std::io::Error| format!("cannot write a record in `{}`: {e}", dir.display());
        let mut temp = tempfile::Builder::new().prefix(PARTIAL).tempfile_in(dir).map_err(failed)?;
        try_lock(temp.as_file()).map_err(failed)?;
        temp.write_all(&bytes).map_err(failed)?;
        let name = format!("{}-{}.run", std::process::id(), unique_suffix());
        let path = dir.join(name);
        let locked = temp.persist_noclobber(&path).map_err(|e| failed(e.error))?;
        Ok(Record { path, _locked: locked })
    }

    /// The run has looked at its files: the record is no longer needed.
    pub fn done(self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// A name no other record has: the time in nanoseconds (with the pid
/// before it, unique among the living; `persist_noclobber` refuses a clash).
fn unique_suffix() -> u128 {
    SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_nanos())
}

/// Where records are kept, in the order tried: `$XDG_STATE_HOME/tisslang/unfinished`,
/// else `~/.local/state/tisslang/unfinished` (absolute variables only); then
/// `$TMPDIR/tisslang-UID/unfinished`, for a user whose home cannot be written.
fn records_dirs() -> Vec<PathBuf> {
    let uid = rustix::process::geteuid().as_raw();
    let temp = std::env::temp_dir().join(format!("tisslang-{uid}")).join("unfinished");
    tisslang_state_dir().map(|dir| dir.join("unfinished")).into_iter().chain([temp]).collect()
}

/// Refuses a directory another user could have made or could write in (the
/// temporary one above all): records there would be theirs to plant.
fn private_dir(dir: &Path) -> Result<(), String> {
    let meta = std::fs::symlink_metadata(dir).map_err(|e| format!("cannot read `{}`: {e}", dir.display()))?;
    let ours = meta.is_dir() && meta.uid() == rustix::process::geteuid().as_raw() && meta.mode() & 0o022 == 0;
    if !ours {
        return Err(format!(
            "`{}` is not a directory of this user's that others cannot write",
            dir.display()
        ));
    }
    Ok(())
}

/// This user's state directory for tissvm: `$XDG_STATE_HOME/tisslang`, else
/// `$HOME/.local/state/tisslang`, if either variable holds an absolute path.
pub fn tisslang_state_dir() -> Option<PathBuf> {
    let absolute = |var: &str| std::env::var_os(var).map(PathBuf::from).filter(|p| p.is_absolute());
    match (absolute("XDG_STATE_HOME"), absolute("HOME")) {
        (Some(state), _) => Some(state.join("tisslang")),
        (None, Some(home)) => Some(home.join(".local/state/tisslang")),
        (None, None) => None,
    }
}

/// A record whose run died before it removed it, taken: its lock is held
/// by the caller until the record is gone.
pub struct Orphan {
    pub kept: Kept,
    pub pid: String,
    path: PathBuf,
    _locked: File,
}

impl Orphan {
    /// Its files have been looked at: the record goes.
    pub fn done(self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The records of runs that ended without removing them: no one holds their
/// lock. A record that cannot be read is moved aside (`NAME.unreadable`)
/// and told; partial records of dead writers are removed.
pub fn orphans() -> Vec<Orphan> {
    let mut found = Vec::new();
    scan(|record| match record {
        Found::Free(orphan) => found.push(orphan),
        Found::Held(..) => {}
    });
    found
}

/// What the records of runs going on now keep (their lock is held), the
/// earliest first: the files as they stood before the first of them ran.
pub fn live() -> Vec<Kept> {
    let mut found = Vec::new();
    scan(|record| match record {
        Found::Held(started, kept) => found.push((started, kept)),
        // Not taken here: put back by the next tissvm to start.
        Found::Free(_) => {}
    });
    found.sort_by_key(|(started, _)| *started);
    found.into_iter().map(|(_, kept)| kept).collect()
}

/// A record found: one whose run is gone, now locked by the caller, or
/// what one a living run holds keeps.
enum Found {
    Free(Orphan),
    /// When it was written (nanoseconds, from its name), and what it keeps.
    Held(u128, Kept),
}

fn scan(mut found: impl FnMut(Found)) {
    for dir in records_dirs() {
        scan_dir(&dir, &mut found);
    }
}

fn scan_dir(dir: &Path, found: &mut impl FnMut(Found)) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let uid = rustix::process::geteuid().as_raw();
    // Looked at only if it holds a record (most runs find none).
    let mut trusted = None;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let path = entry.path();
        let partial = name.as_bytes().starts_with(PARTIAL.as_bytes());
        if !partial && !name.as_bytes().ends_with(b".run") {
            continue;
        }
        let private = || private_dir(dir).is_ok() && private_dir(dir.parent().unwrap_or(dir)).is_ok();
        if !*trusted.get_or_insert_with(private) {
            return;
        }
        // Opened without following a link, and only if it is this user's.
        let Ok(file) = open_nofollow(&path) else { continue };
        let Ok(meta) = file.metadata() else { continue };
        if !meta.is_file() || meta.uid() != uid || meta.nlink() == 0 {
            continue;
        }
        if try_lock(&file).is_err() {
            // Its run lives (a partial one is still being written).
            if let (false, Ok(kept)) = (partial, read_kept(&file, meta.len())) {
                let started =
                    name.to_str().and_then(|n| n.strip_suffix(".run")?.split_once('-')?.1.parse().ok());
                found(Found::Held(started.unwrap_or(u128::MAX), kept));
            }
            continue;
        }
        if partial {
            let old =
                meta.modified().ok().and_then(|m| m.elapsed().ok()).is_some_and(|age| age > PARTIAL_AGE);
            if old {
                let _ = std::fs::remove_file(&path);
            }
            continue;
        }
        match read_kept(&file, meta.len()) {
            // Another machine's: left to a tissvm there.
            Ok(kept) if kept.host != this_host() => {}
            Ok(kept) => {
                let pid = name.to_string_lossy().split('-').next().unwrap_or("?").to_string();
                found(Found::Free(Orphan { kept, pid, path, _locked: file }));
            }
            Err(why) => {
                let aside = path.with_extension("unreadable");
                let _ = std::fs::rename(&path, &aside);
                let warning =
                    crate::runner::color::stderr().paint(crate::report::style::Tone::Warn, "warning");
                eprintln!(
                    "tissvm: {warning}: the record an earlier run left of its project files cannot be read \
                     ({why}); it is kept as `{}`",
                    aside.display()
                );
            }
        }
    }
}

/// An exclusive `flock`, if no one holds one (released when the file's last
/// descriptor closes, or its holder dies).
fn try_lock(file: &File) -> std::io::Result<()> {
    rustix::fs::flock(file, rustix::fs::FlockOperation::NonBlockingLockExclusive)
        .map_err(std::io::Error::from)
}

fn open_nofollow(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK).open(path)
}

fn read_kept(mut file: &File, len: u64) -> Result<Kept, String> {
    if len > MAX_RECORD {
        return Err(format!("{len} bytes, more than a record holds"));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.read_to_end(&mut bytes).map_err(|e| e.to_string())?;
    let (kept, used) = bincode::serde::decode_from_slice::<Kept, _>(
        &bytes,
        bincode::config::standard().with_limit::<MAX_RECORD_USIZE>(),
    )
    .map_err(|e| e.to_string())?;
    if used != bytes.len() {
        return Err("bytes after its end".into());
    }
    Ok(kept)
}

const MAX_RECORD_USIZE: usize = MAX_RECORD as usize;

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn kept(host: &[u8]) -> Kept {
        let file =
            KeptFile { path: b"/w/tiss.toml".to_vec(), state: KeptState::File(b"x".to_vec()), what: 0 };
        Kept { host: host.to_vec(), workspace: b"/w".to_vec(), files: vec![file] }
    }

    /// What a scan of `dir` finds: orphans' hosts, and living records' hosts.
    fn scan_of(dir: &Path) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
        let (mut free, mut held) = (Vec::new(), Vec::new());
        scan_dir(dir, &mut |found| match found {
            Found::Free(orphan) => free.push(orphan.kept.host.clone()),
            Found::Held(_, kept) => held.push(kept.host),
        });
        (free, held)
    }

    /// A record is an orphan once its writer lets go of its lock (as the
    /// kernel does when the writer dies), and only on its own machine.
    #[test]
    fn a_record_is_an_orphan_once_unlocked_and_only_on_its_machine() {
        let root = tempfile::tempdir().unwrap();
        std::fs::set_permissions(root.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
        let dir = root.path().join("unfinished");
        let here = Record::write_in(&dir, &kept(&this_host())).unwrap();
        let there = Record::write_in(&dir, &kept(b"another-machine")).unwrap();
        let (free, held) = scan_of(&dir);
        assert!(free.is_empty());
        assert_eq!(held.len(), 2);
        // Dropped without `done`: the lock goes, the file stays. A child
        // another test of this process forks holds the lock's file until
        // it execs (flock belongs to the open file, which a fork shares):
        // wait that out, as a later tissvm would find it free.
        drop((here, there));
        let mut scan = scan_of(&dir);
        for _ in 0..200 {
            if !scan.0.is_empty() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
            scan = scan_of(&dir);
        }
        let (free, held) = scan;
        assert_eq!(free, vec![this_host()], "the other machine's is left to it");
        assert!(held.is_empty());
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2);
    }

    /// Records in a directory others may write are not read at all.
    #[test]
    fn a_directory_others_can_write_is_not_trusted() {
        let root = tempfile::tempdir().unwrap();
        std::fs::set_permissions(root.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
        let dir = root.path().join("unfinished");
        drop(Record::write_in(&dir, &kept(&this_host())).unwrap());
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
        assert_eq!(scan_of(&dir), (vec![], vec![]));
        assert!(Record::write_in(&dir, &kept(&this_host())).is_err());
    }
}
