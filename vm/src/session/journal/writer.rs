//! Appends to a journal, one frame per entry, each with a single `write`
//! as the event happens (no buffering: a crash of tissvm loses nothing
//! written before it; a crash of the machine at most the frame in flight,
//! which the reader drops as a torn tail). A new journal is never written
//! over an existing file; `resume` continues the journal of the run it
//! resumes, after cutting off a torn tail. Each frame is signed with this
//! user's key where there is one (`signature.rs`).

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use super::reader::{JournalReader, Next};
use super::signature::{MAC_LEN, UNSIGNED, frame_mac};
use super::{Entry, FRAME_HEAD, HEADER_LEN, JOURNAL_VERSION, JournalError, MAGIC, encode};
use crate::session::snapshot_key::SnapshotKey;

pub struct JournalWriter {
    file: File,
    pub path: PathBuf,
    /// Outputs above this many bytes are kept as head, tail and hash.
    pub cap: usize,
    /// The first write that failed: the journal is then incomplete, told once.
    pub error: Option<String>,
    /// What signs each frame (none: the frames' MACs are zeros).
    key: Option<SnapshotKey>,
    /// The MAC of the last frame: the next is signed after it.
    last_mac: [u8; MAC_LEN],
}

impl JournalWriter {
    /// A new journal at `path` (refused if the file exists), opened with
    /// `start`, its frames signed with `key`.
    pub fn create(
        path: &Path,
        cap: usize,
        start: &Entry,
        key: Option<SnapshotKey>,
    ) -> Result<JournalWriter, JournalError> {
        let fail = |e: std::io::Error| JournalError {
            message: match e.kind() {
                // `/dev/stdout`, a pipe: a journal is a file, read back after.
                std::io::ErrorKind::AlreadyExists if !path.metadata().is_ok_and(|m| m.is_file()) => format!(
                    "the journal `{}` is not a regular file: a journal is a new file (binary, written as the \
                     run goes), read back with `tissvm replay FILE` or `tissvm inspect FILE`; give a path \
                     such as `--journal run.journal`",
                    path.display()
                ),
                std::io::ErrorKind::AlreadyExists => format!(
                    "the journal `{}` exists: give a new file (a journal is only continued by `tissvm resume` \
                     of the run it recorded)",
                    path.display()
                ),
                _ => format!("the journal `{}` cannot be created: {e}", path.display()),
            },
        };
        // Private like a snapshot: it holds what the run read and was told.
        let mut file =
            OpenOptions::new().write(true).create_new(true).mode(0o600).open(path).map_err(fail)?;
        let mut header = MAGIC.to_vec();
        header.extend_from_slice(&JOURNAL_VERSION.to_le_bytes());
        file.write_all(&header).map_err(fail)?;
        let mut writer =
            JournalWriter { file, path: path.to_path_buf(), cap, error: None, key, last_mac: UNSIGNED };
        writer.record(start);
        writer.error.take().map_or(Ok(writer), |message| Err(JournalError { message }))
    }

    /// Continues the journal at `path`, which must have recorded the run of
    /// `module_hash`; a torn tail is cut off first. `start` is appended, and
    /// each frame from it signed with `key` after the journal's last.
    pub fn append(
        path: &Path,
        cap: usize,
        module_hash: &str,
        start: &Entry,
        key: Option<SnapshotKey>,
    ) -> Result<JournalWriter, JournalError> {
        let mut reader = JournalReader::open(path)?;
        if reader.version() != JOURNAL_VERSION {
            return Err(JournalError {
                message: format!(
                    "the journal `{}` is of format {}, and this tissvm writes format {JOURNAL_VERSION}: give the \
                     resumed run a new --journal",
                    path.display(),
                    reader.version()
                ),
            });
        }
        let end = loop {
            match reader.next_entry()? {
                Next::Entry(at, entry)
                    if at == HEADER_LEN as u64
                        && matches!(&*entry, Entry::Start { module_hash: recorded, .. } if recorded != module_hash) =>
                {
                    return Err(JournalError {
                        message: format!(
                            "the journal `{}` recorded another plan (its bytecode differs): give a new file",
                            path.display()
                        ),
                    });
                }
                Next::Entry(..) => {}
                Next::Torn(at) => break at,
                Next::End => break reader.offset(),
            }
        };
        let fail = |e: std::io::Error| JournalError {
            message: format!("the journal `{}` cannot be continued: {e}", path.display()),
        };
        let last_mac = reader.last_mac();
        let file = OpenOptions::new().write(true).open(path).map_err(fail)?;
        file.set_len(end).map_err(fail)?;
        let file = OpenOptions::new().append(true).open(path).map_err(fail)?;
        let mut writer = JournalWriter { file, path: path.to_path_buf(), cap, error: None, key, last_mac };
        writer.record(start);
        writer.error.take().map_or(Ok(writer), |message| Err(JournalError { message }))
    }

    /// Appends `entry` as one frame.
    pub fn record(&mut self, entry: &Entry) {
        if self.error.is_some() {
            return;
        }
        let payload = encode(entry);
        let mac = self
            .key
            .as_ref()
            .map_or(UNSIGNED, |key| frame_mac(key, JOURNAL_VERSION, &self.last_mac, &payload));
        self.last_mac = mac;
        let mut frame = Vec::with_capacity(FRAME_HEAD + MAC_LEN + payload.len());
        frame.extend_from_slice(&((MAC_LEN + payload.len()) as u32).to_le_bytes());
        frame.extend_from_slice(&[0; 4]);
        frame.extend_from_slice(&mac);
        frame.extend_from_slice(&payload);
        let crc = tisslang::codec::crc32::crc32(&frame[FRAME_HEAD..]);
        frame[4..FRAME_HEAD].copy_from_slice(&crc.to_le_bytes());
        if let Err(e) = self.file.write_all(&frame) {
            self.error = Some(format!("writing the journal `{}` failed: {e}", self.path.display()));
        }
    }
}
