//! The journal (book: cookbook/journal.md): everything a run took from outside the VM, in
//! order — each RUN's result, each READ's content, each file test, each
//! model answer with its usage, each human answer, each clock reading —
//! and the hash of every file it wrote, so that the run can be replayed
//! without running anything.
//!
//! The file: an 8-byte magic and a 2-byte format version, then frames,
//! each a 4-byte length, a 4-byte CRC-32 of the body and the body: a MAC
//! under this user's key (`signature.rs`) and the payload (an [`Entry`],
//! bincode). Frames are appended as the events happen, each
//! with one `write`, so a crash leaves at most one frame cut short: the
//! reader drops such a torn tail and refuses a bad frame before the end,
//! naming its offset. The first entry is [`Entry::Start`], which carries
//! the bytecode. Outputs longer than the journal's cap are kept as head,
//! tail, length and SHA-256 ([`Kept`]).
//!
//! `writer.rs` appends, `reader.rs` streams the frames back, `signature.rs`
//! signs and checks them.

pub mod reader;
pub mod signature;
pub mod writer;

use serde::{Deserialize, Serialize};

use crate::host::{Answer, HostError, PromptRequest, Question};
use crate::policy::PolicyRules;

/// The first bytes of a journal.
pub const MAGIC: [u8; 8] = *b"TISSJRNL";
/// Bump when the frame layout or any [`Entry`] changes. Format 2 added
/// [`Entry::Limits`] at the end, so a journal of format 1 reads as one of
/// format 2 that has none ([`OLDEST_VERSION`]); format 3 signed each frame
/// (a MAC before its payload), and those before it read as unsigned.
pub const JOURNAL_VERSION: u16 = 3;
/// The oldest format this tissvm reads.
pub const OLDEST_VERSION: u16 = 1;
/// Magic and version.
pub const HEADER_LEN: usize = 10;
/// Length and CRC of a frame (its body, from format 3, a MAC and the payload).
pub const FRAME_HEAD: usize = 8;
/// No frame is larger: two outputs at the largest cap and their records.
pub const MAX_FRAME: usize = 2 * MAX_OUTPUT_CAP + (1 << 20);
/// `--journal-max-output` at most, and by default (book: cookbook/journal.md: 64 MiB).
pub const MAX_OUTPUT_CAP: usize = 64 << 20;

/// One thing the run took from outside the VM.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Entry {
    /// The run began (or was resumed: `resumed`), with this bytecode.
    Start {
        tissvm: String,
        module_hash: String,
        bytecode: Vec<u8>,
        resumed: bool,
    },
    Run {
        command: String,
        dir: Option<String>,
        timeout_ms: Option<u64>,
        result: Result<RunRecord, Failed>,
    },
    Read {
        path: String,
        result: Result<Kept, Failed>,
    },
    /// WRITE or APPEND: the written file's SHA-256 afterwards (`None` if it
    /// could not be read back).
    Write {
        path: String,
        append: bool,
        content: [u8; 32],
        file: Option<[u8; 32]>,
        result: Result<(), Failed>,
    },
    Mkdir {
        path: String,
        result: Result<(), Failed>,
    },
    Delete {
        path: String,
        recursive: bool,
        result: Result<(), Failed>,
    },
    FileTest {
        path: String,
        query: String,
        result: Result<bool, Failed>,
    },
    /// A model request (`key`: what was asked, hashed) and what came back.
    Prompt {
        key: [u8; 32],
        query: String,
        result: Result<PromptRecord, PromptFailed>,
    },
    /// A human's answer to the question at `line`, and where it came from
    /// (`terminal`, an answers file's entry, `--answer`).
    Answer {
        line: u32,
        question: Question,
        answer: Answer,
        origin: String,
    },
    /// A reading of the run's clock, in milliseconds.
    Clock {
        ms: u64,
    },
    /// The run stopped between two instructions and went straight on (a
    /// checkpoint written): the time from the clock reading before it to
    /// the one after is not the run's, and a replay, which does not stop
    /// there, leaves it out too.
    Stop,
    /// The isolation RUN had (the report's `sandbox`), once the host is set up.
    Sandbox {
        profile: String,
        enforced: Vec<String>,
        missing: Vec<String>,
    },
    /// The run stopped: how (the report's status), suspended its snapshot,
    /// failed the top-level step it failed in (what `--from-failed` restarts).
    End {
        status: String,
        snapshot: Option<String>,
        failed_step: Option<String>,
    },
    /// What the run (or a resumed part of it) was held to from its first
    /// instruction: the budget caps in force (by [`tisslang::cost::Dim`]
    /// number; `--budget`, and a resumed run's snapshot's, raised or not),
    /// the command policy, and the tokens each model answer was allowed
    /// (`--max-tokens`, which the preflight of prompts and steps counts). A
    /// replay is held to the same, so it refuses, fails and warns where the
    /// run did. Last, so that the entries before it keep their encoding
    /// (format 2 on).
    Limits {
        caps: Vec<(u8, u64)>,
        policy: Option<PolicyRules>,
        max_tokens: u64,
    },
}

impl Entry {
    /// What the entry is, for messages and `tissvm inspect`.
    pub fn kind(&self) -> &'static str {
        match self {
            Entry::Start { .. } => "start",
            Entry::Run { .. } => "run",
            Entry::Read { .. } => "read",
            Entry::Write { append: false, .. } => "write",
            Entry::Write { append: true, .. } => "append",
            Entry::Mkdir { .. } => "mkdir",
            Entry::Delete { .. } => "delete",
            Entry::FileTest { .. } => "file_test",
            Entry::Prompt { .. } => "prompt",
            Entry::Answer { .. } => "answer",
            Entry::Clock { .. } => "clock",
            Entry::Stop => "stop",
            Entry::Sandbox { .. } => "sandbox",
            Entry::End { .. } => "end",
            Entry::Limits { .. } => "limits",
        }
    }
}

/// Text as the journal keeps it: whole, or above the cap its head and tail.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Kept {
    Whole(String),
    Cut { head: String, tail: String, bytes: u64, sha256: [u8; 32] },
}

impl Kept {
    /// `text` whole if at most `cap` bytes, else its first and last
    /// `cap / 2` bytes (on character boundaries) with its length and hash.
    pub fn of(text: &str, cap: usize) -> Kept {
        if text.len() <= cap {
            return Kept::Whole(text.to_string());
        }
        let half = cap / 2;
        let mut head_end = half;
        while !text.is_char_boundary(head_end) {
            head_end -= 1;
        }
        let mut tail_start = text.len() - half;
        while !text.is_char_boundary(tail_start) {
            tail_start += 1;
        }
        Kept::Cut {
            head: text[..head_end].to_string(),
            tail: text[tail_start..].to_string(),
            bytes: text.len() as u64,
            sha256: tisslang::codec::seal::sha256(text.as_bytes()),
        }
    }

    /// The text, if the journal kept all of it.
    pub fn whole(&self) -> Option<&str> {
        match self {
            Kept::Whole(text) => Some(text),
            Kept::Cut { .. } => None,
        }
    }

    pub fn len(&self) -> u64 {
        match self {
            Kept::Whole(text) => text.len() as u64,
            Kept::Cut { bytes, .. } => *bytes,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What a RUN recorded (`LAST_RUN`), its outputs kept as [`Kept`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunRecord {
    pub stdout: Kept,
    pub stderr: Kept,
    pub exit_code: i64,
    pub duration_ms: u64,
    pub timed_out: bool,
}

/// A host failure: `security` for a security violation, else a command error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failed {
    pub security: bool,
    pub message: String,
}

impl From<&HostError> for Failed {
    fn from(e: &HostError) -> Failed {
        match e {
            HostError::Command(message) => Failed { security: false, message: message.clone() },
            HostError::Security(message) => Failed { security: true, message: message.clone() },
        }
    }
}

impl From<&Failed> for HostError {
    fn from(f: &Failed) -> HostError {
        if f.security {
            HostError::Security(f.message.clone())
        } else {
            HostError::Command(f.message.clone())
        }
    }
}

/// A model's answer with its usage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptRecord {
    pub text: Kept,
    pub tokens: u64,
    pub estimated: bool,
    pub requests: u64,
    pub finish_reason: Option<String>,
}

/// A model request that got no answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptFailed {
    pub message: String,
    pub requests: u64,
    pub out_of_calls: bool,
}

/// What a model request asked, hashed: the query, the context, the answer's
/// schema and a repair's answer and errors, each with its length first.
pub fn prompt_key(request: &PromptRequest) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    let mut part = |bytes: &[u8]| {
        hash.update((bytes.len() as u64).to_le_bytes());
        hash.update(bytes);
    };
    part(request.query.as_bytes());
    for (name, value) in &request.context {
        part(name.as_bytes());
        part(value.as_bytes());
    }
    if let Some(format) = &request.answer_format {
        part(format.name.as_bytes());
        part(format.schema.to_string().as_bytes());
    }
    if let Some(repair) = &request.repair {
        part(repair.answer.as_bytes());
        part(repair.errors.as_bytes());
    }
    hash.finalize().into()
}

/// A journal that cannot be used, and why; `offset` is the byte where the
/// fault is, when there is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JournalError {
    pub message: String,
}

impl std::fmt::Display for JournalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

fn config() -> impl bincode::config::Config {
    bincode::config::standard().with_limit::<{ MAX_FRAME }>()
}

/// An entry's payload.
pub fn encode(entry: &Entry) -> Vec<u8> {
    bincode::serde::encode_to_vec(entry, config()).unwrap_or_default()
}

/// A payload's entry. Its collections claim their memory from the budget
/// the payload's size sets, as a snapshot's and a `.tbc`'s do
/// (`tisslang::codec::decode_budget`): a policy's pattern list stated
/// billions long is refused, not allocated.
pub(crate) fn decode(payload: &[u8]) -> Result<Entry, String> {
    let decoded = tisslang::codec::decode_budget::within(payload.len(), || {
        bincode::serde::decode_from_slice::<Entry, _>(payload, config())
    });
    match decoded {
        Ok((entry, used)) if used == payload.len() => Ok(entry),
        Ok(_) => Err("its frame holds bytes after its entry".into()),
        Err(e) => Err(e.to_string()),
    }
}

#[cfg(test)]
mod tests;
