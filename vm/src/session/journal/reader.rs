//! Streams a journal's frames back, one at a time (a journal of a gigabyte
//! is never held whole): the header checked first, then each frame's
//! length and CRC. A frame cut short, or a bad last frame, is a torn tail
//! (a crash while it was written): reading ends there and says so. A bad
//! frame with more after it is corruption, refused with its offset. Each
//! frame's MAC is checked as it is read, when asked ([`Check`]).

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use super::signature::{Check, MAC_LEN, NotYours, SIGNED_FROM, UNSIGNED};
use super::{
    Entry, FRAME_HEAD, HEADER_LEN, JOURNAL_VERSION, JournalError, MAGIC, MAX_FRAME, OLDEST_VERSION, decode,
};

pub struct JournalReader {
    reader: BufReader<File>,
    offset: u64,
    len: u64,
    name: String,
    version: u16,
    /// The MAC of the last frame read: the next one is signed after it.
    last_mac: [u8; MAC_LEN],
    check: Check,
    /// The first frame read that this user's key did not sign.
    not_yours: Option<NotYours>,
}

/// What comes next in a journal.
#[derive(Debug)]
pub enum Next {
    /// An entry and the offset of its frame.
    Entry(u64, Box<Entry>),
    /// The last frame was cut short (or its bytes never all reached the
    /// disk): the journal ends at this offset.
    Torn(u64),
    End,
}

impl JournalReader {
    pub fn open(path: &Path) -> Result<JournalReader, JournalError> {
        let name = path.display().to_string();
        let fail = |message: String| JournalError { message };
        let file = File::open(path).map_err(|e| fail(format!("the journal `{name}` cannot be read: {e}")))?;
        let len =
            file.metadata().map_err(|e| fail(format!("the journal `{name}` cannot be read: {e}")))?.len();
        let mut reader = BufReader::with_capacity(1 << 16, file);
        let mut header = [0u8; HEADER_LEN];
        if len < HEADER_LEN as u64 || reader.read_exact(&mut header).is_err() || header[..8] != MAGIC {
            return Err(fail(format!("`{name}` is not a TissLang journal (no journal magic number)")));
        }
        let version = u16::from_le_bytes([header[8], header[9]]);
        if !(OLDEST_VERSION..=JOURNAL_VERSION).contains(&version) {
            return Err(fail(format!(
                "the journal `{name}` is of format {version}, and this tissvm reads formats \
                 {OLDEST_VERSION} to {JOURNAL_VERSION}"
            )));
        }
        Ok(JournalReader {
            reader,
            offset: HEADER_LEN as u64,
            len,
            name,
            version,
            last_mac: UNSIGNED,
            check: Check::Nothing,
            not_yours: None,
        })
    }

    /// Checks each frame read from now on as `check` says.
    pub fn check(mut self, check: Check) -> JournalReader {
        self.check = check;
        self
    }

    /// The first frame read that this user's key did not sign, if one was
    /// (checked as [`JournalReader::check`] asked).
    pub fn not_yours(&self) -> Option<&NotYours> {
        self.not_yours.as_ref()
    }

    /// The format the journal was written in.
    pub fn version(&self) -> u16 {
        self.version
    }

    /// The MAC of the last frame read, which the next frame written after
    /// it is signed after.
    pub fn last_mac(&self) -> [u8; MAC_LEN] {
        self.last_mac
    }

    /// The offset of the next frame: where a torn tail would be cut.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    pub fn next_entry(&mut self) -> Result<Next, JournalError> {
        let at = self.offset;
        let left = self.len - at;
        if left == 0 {
            return Ok(Next::End);
        }
        if left < FRAME_HEAD as u64 {
            return Ok(Next::Torn(at));
        }
        let mut head = [0u8; FRAME_HEAD];
        self.read(&mut head)?;
        let size = u32::from_le_bytes([head[0], head[1], head[2], head[3]]) as u64;
        let crc = u32::from_le_bytes([head[4], head[5], head[6], head[7]]);
        let end = at + FRAME_HEAD as u64 + size;
        if end > self.len {
            return Ok(Next::Torn(at));
        }
        if size > MAX_FRAME as u64 {
            return Err(self.corrupt(at, &format!("a frame of {size} bytes, more than any entry")));
        }
        let mut body = vec![0u8; size as usize];
        self.read(&mut body)?;
        self.offset = end;
        if tisslang::codec::crc32::crc32(&body) != crc {
            if end == self.len {
                return Ok(Next::Torn(at));
            }
            return Err(self.corrupt(at, "its checksum does not match"));
        }
        let payload = if self.version >= SIGNED_FROM {
            let Some((mac, payload)) = body.split_first_chunk::<MAC_LEN>() else {
                return Err(self.corrupt(at, "its frame is shorter than a signature"));
            };
            if self.not_yours.is_none() {
                self.not_yours = self.check.frame(self.version, at, &self.last_mac, mac, payload);
            }
            self.last_mac = *mac;
            payload
        } else {
            if self.not_yours.is_none() {
                self.not_yours = self.check.frame(self.version, at, &UNSIGNED, &UNSIGNED, &body);
            }
            &body[..]
        };
        if let Some(not) = self.not_yours.as_ref().filter(|_| self.check.requires()) {
            return Err(JournalError {
                message: format!(
                    "the journal `{}` is not signed by your key (from byte {}): {}; a restart takes what it \
                     recorded as what happened (command outputs, model and human answers): restart only from \
                     a journal your own run wrote, or add --trust-journal to take this one",
                    self.name, not.at, not.why
                ),
            });
        }
        match decode(payload) {
            Ok(entry) => Ok(Next::Entry(at, Box::new(entry))),
            Err(e) => Err(self.corrupt(at, &format!("its entry does not decode ({e})"))),
        }
    }

    fn read(&mut self, buf: &mut [u8]) -> Result<(), JournalError> {
        self.reader
            .read_exact(buf)
            .map_err(|e| JournalError { message: format!("the journal `{}` cannot be read: {e}", self.name) })
    }

    fn corrupt(&self, at: u64, why: &str) -> JournalError {
        JournalError { message: format!("the journal `{}` is corrupt at byte {at}: {why}", self.name) }
    }
}
