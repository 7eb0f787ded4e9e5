//! What a resumed run keeps of its snapshot ([`Resumed`]), and the
//! snapshot's record that it is resumed (book: cli/tissvm.md, [`Mark`]): a snapshot is
//! resumed once, and by one process at a time.

use std::path::{Path, PathBuf};

use tiss_support::io_message::io_message;
use tiss_support::shell::quote::shell_word;

use crate::runner::invalid::Invalid;
use crate::session::resume_lock::ResumeLock;
use crate::session::snapshot::{self, AnswersPosition, Continuation};
use crate::session::snapshot_key::SnapshotKey;

/// What a resumed run keeps of its snapshot.
pub struct Resumed {
    /// The snapshot file, as given.
    pub path: PathBuf,
    /// The file's bytes as read, to mark it resumed (or leave it as it was).
    pub bytes: Vec<u8>,
    /// Where the run stood in its answers file, if it had one.
    pub answers: Option<AnswersPosition>,
    /// `--force`: go on even if the snapshot cannot record that it is resumed.
    pub force: bool,
    /// `--raise-budget`: a `--budget` replaces the cap in force, even above it.
    pub raise_budget: bool,
    /// The snapshot's lock, which `Mark` takes over: no other resume of it
    /// runs meanwhile (`None`: its file cannot be marked either).
    pub lock: Option<ResumeLock>,
    /// This user's snapshot key: the marked snapshot stays signed if it
    /// was signed with it.
    pub key: Option<SnapshotKey>,
}

/// Why a snapshot was not marked resumed.
enum Unmarked {
    /// Its file cannot be rewritten (why): `--force` resumes it unrecorded.
    Cannot(String),
    /// It changed since it was read (a program that does not take the
    /// lock wrote it): refused, `--force` or not.
    Changed,
}

/// A snapshot's record that it is resumed (book: cli/tissvm.md): its file rewritten
/// atomically with [`Continuation::Started`] before the resumed run's first
/// instruction, then with what continued it — or as it was, if nothing ran.
pub struct Mark {
    /// The snapshot's file, symbolic links resolved.
    file: PathBuf,
    /// As the user named it, for messages.
    name: String,
    /// The file's bytes before the mark.
    original: Vec<u8>,
    /// This user's key, which keeps the marked file signed if it was.
    key: Option<SnapshotKey>,
    /// The snapshot's lock, held as long as the mark may still change.
    _lock: Option<ResumeLock>,
    /// The run's workspace: a snapshot in it is rewritten as the plan's own
    /// paths are reached, after the resumed run's commands ran.
    workspace: PathBuf,
}

impl Mark {
    /// Marks `resumed`'s snapshot, taking over its lock. A file that cannot
    /// be rewritten (not a regular file, read-only, or changed since it was
    /// read) is refused, unless `--force`: then nothing records this resume
    /// (`Ok(None)`).
    pub fn start(resumed: &mut Resumed, workspace: &Path) -> Result<Option<Mark>, Invalid> {
        let name = resumed.path.display().to_string();
        match Mark::write_started(&resumed.path, &resumed.bytes, resumed.key.as_ref()) {
            Ok(file) => Ok(Some(Mark {
                file,
                name,
                original: resumed.bytes.clone(),
                key: resumed.key.clone(),
                _lock: resumed.lock.take(),
                workspace: workspace.to_path_buf(),
            })),
            Err(Unmarked::Changed) => Err(Invalid::told(
                &name,
                format!(
                    "`{name}` changed while this tissvm was starting (another program wrote it); nothing ran. \
                     See what it holds now with `tissvm resume {}`",
                    shell_word(&name)
                ),
            )),
            Err(Unmarked::Cannot(why)) if resumed.force => {
                eprintln!(
                    "tissvm: warning: nothing records that `{name}` was resumed, nor stops another resume of it \
                     meanwhile ({why}); resuming it again would run the effects after it twice"
                );
                Ok(None)
            }
            Err(Unmarked::Cannot(why)) => Err(Invalid::told(
                &name,
                format!(
                    "cannot record in `{name}` that it is resumed ({why}); without that record it could be \
                     resumed again and the effects after it run twice. Resume a copy that is a regular file in \
                     a writable directory, or pass --force to resume it without the record"
                ),
            )),
        }
    }

    /// Checks that the file still holds what was read and marks it. Other
    /// resumes of it are refused while this one holds its lock, so only a
    /// program that does not take the lock can have changed it.
    fn write_started(path: &Path, read: &[u8], key: Option<&SnapshotKey>) -> Result<PathBuf, Unmarked> {
        let cannot = Unmarked::Cannot;
        let file =
            std::fs::canonicalize(path).map_err(|e| cannot(format!("it has no path to rewrite: {e}")))?;
        if !std::fs::metadata(&file).is_ok_and(|m| m.is_file()) {
            return Err(cannot("it is not a regular file".into()));
        }
        if std::fs::read(&file).ok().as_deref() != Some(read) {
            return Err(Unmarked::Changed);
        }
        let marked = snapshot::with_continuation(read, Some(&Continuation::Started), key)
            .map_err(|e| cannot(e.to_string()))?;
        snapshot::write_snapshot(&file, &marked).map_err(|e| cannot(io_message(&e)))?;
        Ok(file)
    }

    /// Records what continued the snapshot.
    pub fn finish(&self, continuation: &Continuation) {
        let written = snapshot::with_continuation(&self.original, Some(continuation), self.key.as_ref())
            .map_err(|e| e.to_string())
            .and_then(|bytes| self.rewrite(&bytes));
        if let Err(e) = written {
            eprintln!("tissvm: warning: cannot record in `{}` how its resumed run went on: {e}", self.name);
        }
    }

    /// Leaves the snapshot as it was: nothing ran, so it still holds.
    pub fn clear(&self) {
        if let Err(e) = self.rewrite(&self.original) {
            eprintln!("tissvm: warning: cannot clear the resumed mark of `{}`: {e}", self.name);
        }
    }

    /// Replaces the snapshot's file with `bytes`; in the workspace, reached
    /// as the plan's paths are (a link a command made that leads out is
    /// refused, not followed).
    fn rewrite(&self, bytes: &[u8]) -> Result<(), String> {
        let file = tiss_host::workspace::own_path(&self.workspace, &self.file).map_err(|e| {
            let (tiss_host::Error::Security(why) | tiss_host::Error::Command(why)) = e;
            why
        })?;
        snapshot::write_snapshot(&file, bytes).map_err(|e| io_message(&e))
    }
}
