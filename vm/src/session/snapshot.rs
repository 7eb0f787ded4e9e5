//! Snapshots (book: reference/snapshots.md): a suspended run as one self-contained file, written
//! atomically and checksummed, that `tissvm resume` continues — in the same
//! process, another one, or on another machine.
//!
//! Like the `.tbc` container (`tisslang::container`), a snapshot is a fixed
//! header and a bincode payload (bincode 2.0.1 through serde, standard
//! configuration: little-endian varints, the same size limit). Header (all
//! integers little-endian), [`HEADER_LEN`] = 20 bytes:
//!
//! | offset | size | field                                                    |
//! |-------:|-----:|----------------------------------------------------------|
//! |      0 |    8 | magic `1B 'T' 'S' 'N' 0D 0A 1A 0A` ([`MAGIC`])           |
//! |      8 |    2 | snapshot format version ([`SNAPSHOT_VERSION`])           |
//! |     10 |    2 | flags: bit 0 ([`SIGNED`]), the others zero               |
//! |     12 |    4 | payload length in bytes (u32)                            |
//! |     16 |    4 | CRC-32 of the payload (`tisslang::codec::seal`)                 |
//! |     20 |    … | payload                                                  |
//!
//! A signed snapshot's payload ends with a signature: the HMAC-SHA256,
//! under the key of the user whose tissvm wrote it (`snapshot_key.rs`), of
//! the magic, the version and the payload before it. The checksum still
//! covers the whole payload and still only catches accidental damage; the
//! signature is what lets `tissvm resume` follow what the snapshot claims
//! — its workspace, its remembered options — only for a snapshot this
//! user's key signed ([`signed_by`]; book: reference/snapshots.md: a claim, not an authority).
//! Rewriting the resumed mark keeps a snapshot signed only if it was
//! signed with the key given ([`with_continuation`]).
//!
//! The magic differs from the `.tbc` magic in its letters and, like it,
//! carries a CR LF pair, a Ctrl-Z and a lone LF, so a file that went through
//! a text-mode transfer is recognized as such.
//!
//! The payload, in order: the content hash of the module
//! (`tisslang::container::content_hash`), the workspace the run used (the
//! path's bytes), where the run stands in an `--answers` file if one was
//! given, the run's options that `tissvm resume` goes on with
//! ([`RememberedOptions`]), whether the snapshot has been resumed and what
//! continued it ([`Continuation`]), the complete `.tbc` bytes of the module,
//! so a snapshot needs nothing else to be resumed, and last the [`Machine`]
//! (the whole run state), so that the bytecode bounds its decoding.
//!
//! A snapshot is resumed once (book: cli/tissvm.md, "Guards on resume"): before a
//! resumed run's first instruction its file is rewritten, atomically, with
//! the mark [`Continuation::Started`] ([`with_continuation`]), and once the
//! run stops with what continued it (the snapshot it wrote, or how it
//! ended). Everything else in the file stays as it was.
//!
//! Reading trusts nothing: magic, version, flags, length and checksum, then
//! the payload's head is decoded, the embedded bytecode is decoded and
//! verified, its content hash must be the stored one, the machine state is
//! decoded within what the bytecode allows (`machine/state_limits.rs`; every
//! collection, here and in the head, claims its memory before it is
//! allocated, `tisslang::codec::decode_budget`), and it must be one the code can continue
//! from, checked against the verifier's facts (`snapshot/state.rs`: the pc, frames, open steps,
//! the stack's types, the bound variables; a run that has not ended).
//! Every failure is a [`SnapshotError`]; nothing panics, and nothing a
//! snapshot holds reaches an internal error of the machine.
//!
//! Nothing secret is written: the machine's environment holds only the
//! plan's ENV values, never the caller's environment, and the model
//! provider (with any API key) is not part of the state: its settings name the
//! variable that holds the key, never its value.

use std::fmt;
use std::fs;
use std::io;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use tiss_support::atomic_write::{sync_dir, write_atomically, write_temp};
use tisslang::codec::seal::{self, SealError, StartError, u16_at};
use tisslang::container::LoadError;
use tisslang::module::Module;

use crate::machine::Machine;
use crate::machine::state_limits::Limits;
use crate::policy::PolicyRules;
use crate::provider::settings::ProviderSettings;
use crate::session::snapshot_key::SnapshotKey;
use tiss_host::sandbox::Limits as SandboxLimits;

/// The version of the snapshot container and of the machine state inside
/// it. Bump it whenever either changes; the fingerprint test in
/// `vm/src/session/snapshot/tests.rs` fails until you do.
pub const SNAPSHOT_VERSION: u16 = 17;

/// The first eight bytes of every snapshot.
pub const MAGIC: [u8; 8] = *b"\x1bTSN\r\n\x1a\n";

/// Bytes before the payload.
pub const HEADER_LEN: usize = 8 + 2 + 2 + seal::TRAILER_LEN;

/// The largest payload accepted (and bincode's allocation limit): the same
/// as for `.tbc` files.
pub const MAX_PAYLOAD: usize = tisslang::container::MAX_PAYLOAD;

/// Header flag: the payload ends with a signature of [`SIGNATURE_LEN`] bytes.
pub const SIGNED: u16 = 1;

/// The length of a signature (an HMAC-SHA256).
pub const SIGNATURE_LEN: usize = 32;

/// The largest snapshot file: its header and the largest payload. Nothing
/// larger is read ([`read`]).
pub const MAX_FILE: u64 = (HEADER_LEN + MAX_PAYLOAD) as u64;

const KNOWN_FLAGS: u16 = SIGNED;

type Config = bincode::config::Configuration<
    bincode::config::LittleEndian,
    bincode::config::Varint,
    bincode::config::Limit<MAX_PAYLOAD>,
>;

fn config() -> Config {
    bincode::config::standard().with_limit::<MAX_PAYLOAD>()
}

/// Where a run stands in an `--answers` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnswersPosition {
    /// The file, as an absolute path where it could be made one.
    pub file: PathBuf,
    /// How many of its entries the run has used.
    pub next: u32,
}

/// The options of the run that wrote a snapshot, which `tissvm resume`
/// goes on with unless they are given again (book: cli/tissvm.md, "Guards on resume").
/// The budgets are not here: the caps in force are part of the machine.
#[derive(Debug, Clone, PartialEq)]
pub struct RememberedOptions {
    /// `--snapshot-dir`, absolute; `None`: `.tiss/` in the workspace.
    pub snapshot_dir: Option<PathBuf>,
    /// `--log-file`, absolute.
    pub log_file: Option<PathBuf>,
    /// The provider settings (book: reference/models.md): the key's variable by name, never its value.
    pub provider: ProviderSettings,
    /// `--sandbox-profile`, by name.
    pub sandbox_profile: String,
    /// `--env-allow`: the names only, never the values.
    pub env_allow: Vec<String>,
    /// The command policy (`--policy`, `tiss.toml` [policy]): its rules, so
    /// a resumed run keeps them whatever the file says by then.
    pub policy: PolicyRules,
    /// `--max-procs` and `--max-memory` (the `strict` profile's cgroup
    /// limits), as in force: a resumed run enforces the same.
    pub limits: SandboxLimits,
    /// `--log-max-output`; `None`: the log's default.
    pub log_max_output: Option<u64>,
}

impl Default for RememberedOptions {
    /// A fresh run's: no snapshot directory or log file, the default
    /// provider settings (`mock`), the `standard` sandbox profile, no variable allowed.
    fn default() -> RememberedOptions {
        RememberedOptions {
            snapshot_dir: None,
            log_file: None,
            provider: ProviderSettings::default(),
            sandbox_profile: "standard".into(),
            env_allow: Vec::new(),
            policy: PolicyRules::default(),
            limits: SandboxLimits::default(),
            log_max_output: None,
        }
    }
}

/// What became of a snapshot once resumed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Continuation {
    /// A run resumed from it started, and has not told how it stopped: it
    /// may still be running, or it was killed.
    Started,
    /// The resumed run suspended again and wrote this snapshot (absolute).
    Snapshot(PathBuf),
    /// The resumed run ended with this status (`passed`, `failed`,
    /// `budget_exceeded`, ...).
    Ended(String),
}

impl fmt::Display for Continuation {
    /// What the resumed run did: "recorded no end (...)", "went on to ...".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Continuation::Started => {
                f.write_str("recorded no end (it may still be running, or it was killed)")
            }
            Continuation::Snapshot(path) => write!(f, "was suspended again in `{}`", path.display()),
            Continuation::Ended(status) => write!(f, "ended: {status}"),
        }
    }
}

/// A snapshot to write: borrowed parts of a suspended run.
#[derive(Debug, Clone, Copy)]
pub struct SnapshotRef<'a> {
    pub machine: &'a Machine,
    /// The module's complete `.tbc` bytes (`tisslang::container::encode`).
    pub bytecode: &'a [u8],
    /// The module's content hash (`tisslang::container::content_hash`).
    pub content_hash: &'a str,
    /// The workspace the run used (absolute).
    pub workspace: &'a Path,
    pub answers: Option<&'a AnswersPosition>,
    pub options: &'a RememberedOptions,
    /// `None` for a snapshot not resumed yet (every new one).
    pub resumed: Option<&'a Continuation>,
    /// The key that signs it (`None`: unsigned).
    pub key: Option<&'a SnapshotKey>,
}

/// A snapshot read back: checked, with its bytecode loaded and verified.
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub machine: Machine,
    /// The module decoded from `bytecode`, verified.
    pub module: Module,
    pub bytecode: Vec<u8>,
    pub content_hash: String,
    pub workspace: PathBuf,
    pub answers: Option<AnswersPosition>,
    pub options: RememberedOptions,
    /// Whether it has been resumed, and what continued it.
    pub resumed: Option<Continuation>,
    /// Whether it carries a signature (by whichever key: [`signed_by`] tells
    /// whether it is this user's).
    pub signed: bool,
}

/// What a file that is not a snapshot appears to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotSnapshot {
    Empty,
    /// A `.tbc` file.
    Bytecode,
    Other,
}

/// Why a snapshot could not be written or was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SnapshotError {
    /// No snapshot magic number.
    NotSnapshot(NotSnapshot),
    /// The magic number is there but its line-ending bytes were rewritten.
    LineEndingsConverted,
    /// Shorter than the header.
    TruncatedHeader { len: usize },
    /// Written by a tissvm with another snapshot format.
    Version { found: u16, expected: u16 },
    /// Flag bits this VM does not know.
    UnknownFlags { flags: u16 },
    /// The file, its declared payload or a payload to write exceeds [`MAX_PAYLOAD`].
    TooLarge { size: u64, limit: u64 },
    /// The payload is shorter than the header says.
    Truncated { declared: u64, present: u64 },
    /// Bytes after the payload.
    TrailingBytes { count: u64 },
    /// The payload's SHA-256 is not the one in the header.
    ChecksumMismatch,
    /// The payload passed the checksum but is not a well-formed snapshot.
    Malformed { reason: String },
    /// The embedded bytecode was refused.
    Bytecode(LoadError),
    /// The embedded bytecode is not the one the snapshot names.
    HashMismatch { stored: String, actual: String },
    /// The machine state does not fit the embedded module.
    Inconsistent { reason: String },
    /// The state could not be encoded (a bug).
    Encode { reason: String },
}

impl fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SnapshotError::NotSnapshot(NotSnapshot::Empty) => {
                f.write_str("not a TissLang snapshot (the file is empty)")
            }
            SnapshotError::NotSnapshot(NotSnapshot::Bytecode) => f.write_str(
                "not a TissLang snapshot: it is a bytecode file (.tbc); run it with `tissvm run`, or pass \
                 it to `tissvm resume SNAPSHOT --plan FILE.tbc`",
            ),
            SnapshotError::NotSnapshot(NotSnapshot::Other) => {
                f.write_str("not a TissLang snapshot (no snapshot magic number)")
            }
            SnapshotError::LineEndingsConverted => f.write_str(
                "corrupt TissLang snapshot: its line endings were converted (it was copied or transferred \
                 in text mode); copy it as binary",
            ),
            SnapshotError::TruncatedHeader { len } => write!(
                f,
                "truncated TissLang snapshot: {len} bytes, shorter than the {HEADER_LEN}-byte header"
            ),
            SnapshotError::Version { found, expected } => write!(
                f,
                "unsupported TissLang snapshot: format v{found}, this tissvm reads v{expected}; resume it \
                 with the tissvm that wrote it"
            ),
            SnapshotError::UnknownFlags { flags } => write!(
                f,
                "unsupported TissLang snapshot: unknown header flags 0x{:04X}",
                flags & !KNOWN_FLAGS
            ),
            SnapshotError::TooLarge { size, limit } => {
                write!(f, "TissLang snapshot too large: {size} bytes (the limit is {limit})")
            }
            SnapshotError::Truncated { declared, present } => write!(
                f,
                "truncated TissLang snapshot: the header announces {declared} payload bytes, {present} are \
                 present"
            ),
            SnapshotError::TrailingBytes { count } => {
                write!(f, "corrupt TissLang snapshot: {count} unexpected bytes after the payload")
            }
            SnapshotError::ChecksumMismatch => f.write_str(
                "corrupt TissLang snapshot: the payload's checksum does not match the header (the file was \
                 damaged after it was written)",
            ),
            SnapshotError::Malformed { reason } => write!(f, "malformed TissLang snapshot: {reason}"),
            SnapshotError::Bytecode(e) => write!(f, "the snapshot's embedded bytecode is refused: {e}"),
            SnapshotError::HashMismatch { stored, actual } => write!(
                f,
                "corrupt TissLang snapshot: it names bytecode {stored} but embeds bytecode {actual}"
            ),
            SnapshotError::Inconsistent { reason } => {
                write!(f, "invalid TissLang snapshot: the run state does not fit its bytecode: {reason}")
            }
            SnapshotError::Encode { reason } => write!(f, "cannot encode the snapshot: {reason}"),
        }
    }
}

impl std::error::Error for SnapshotError {}

/// Bytes serialized as one length-prefixed block (not element by element).
struct Bytes<'a>(&'a [u8]);

impl Serialize for Bytes<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(self.0)
    }
}

/// The owned counterpart of [`Bytes`].
struct ByteBuf(Vec<u8>);

impl<'de> Deserialize<'de> for ByteBuf {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = ByteBuf;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<ByteBuf, E> {
                Ok(ByteBuf(v.to_vec()))
            }
            fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<ByteBuf, E> {
                Ok(ByteBuf(v))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<ByteBuf, A::Error> {
                let mut out = Vec::new();
                while let Some(b) = seq.next_element::<u8>()? {
                    out.push(b);
                }
                Ok(ByteBuf(out))
            }
        }
        deserializer.deserialize_byte_buf(Visitor)
    }
}

/// [`RememberedOptions`] on the wire: paths as their bytes.
#[derive(Serialize, Deserialize)]
struct OptionsWire {
    snapshot_dir: Option<Vec<u8>>,
    log_file: Option<Vec<u8>>,
    provider: ProviderSettings,
    sandbox_profile: String,
    #[serde(deserialize_with = "bounded::env_allow")]
    env_allow: Vec<String>,
    policy: PolicyRules,
    max_procs: u64,
    max_memory: u64,
    log_max_output: Option<u64>,
}

mod bounded {
    tisslang::bounded_vecs! { env_allow: "--env-allow names" }
}

/// [`Continuation`] on the wire.
#[derive(Serialize, Deserialize)]
enum ContinuationWire {
    Started,
    Snapshot(Vec<u8>),
    Ended(String),
}

fn path_bytes(path: &Path) -> Vec<u8> {
    path.as_os_str().as_bytes().to_vec()
}

fn bytes_path(bytes: Vec<u8>) -> PathBuf {
    PathBuf::from(std::ffi::OsString::from_vec(bytes))
}

impl OptionsWire {
    fn from(options: &RememberedOptions) -> OptionsWire {
        OptionsWire {
            snapshot_dir: options.snapshot_dir.as_deref().map(path_bytes),
            log_file: options.log_file.as_deref().map(path_bytes),
            provider: options.provider.clone(),
            sandbox_profile: options.sandbox_profile.clone(),
            env_allow: options.env_allow.clone(),
            policy: options.policy.clone(),
            max_procs: options.limits.max_procs,
            max_memory: options.limits.max_memory,
            log_max_output: options.log_max_output,
        }
    }

    fn into_options(self) -> RememberedOptions {
        RememberedOptions {
            snapshot_dir: self.snapshot_dir.map(bytes_path),
            log_file: self.log_file.map(bytes_path),
            provider: self.provider,
            sandbox_profile: self.sandbox_profile,
            env_allow: self.env_allow,
            policy: self.policy,
            limits: SandboxLimits { max_procs: self.max_procs, max_memory: self.max_memory },
            log_max_output: self.log_max_output,
        }
    }
}

impl ContinuationWire {
    fn from(continuation: &Continuation) -> ContinuationWire {
        match continuation {
            Continuation::Started => ContinuationWire::Started,
            Continuation::Snapshot(path) => ContinuationWire::Snapshot(path_bytes(path)),
            Continuation::Ended(status) => ContinuationWire::Ended(status.clone()),
        }
    }

    fn into_continuation(self) -> Continuation {
        match self {
            ContinuationWire::Started => Continuation::Started,
            ContinuationWire::Snapshot(path) => Continuation::Snapshot(bytes_path(path)),
            ContinuationWire::Ended(status) => Continuation::Ended(status),
        }
    }
}

/// The payload's head as written: everything but the machine, which
/// follows it. The bytecode comes before the machine so that what it
/// allows bounds the machine's decoding (`machine/state_limits.rs`). Field order
/// is the wire order: keep it in step with [`HeadIn`].
#[derive(Serialize)]
struct HeadOut<'a> {
    content_hash: &'a str,
    workspace: Bytes<'a>,
    answers: Option<(Bytes<'a>, u32)>,
    options: OptionsWire,
    resumed: Option<ContinuationWire>,
    bytecode: Bytes<'a>,
}

/// The payload's head as read, the bytecode borrowed from the payload.
#[derive(Deserialize)]
struct HeadIn<'a> {
    content_hash: String,
    workspace: ByteBuf,
    answers: Option<(ByteBuf, u32)>,
    options: OptionsWire,
    resumed: Option<ContinuationWire>,
    bytecode: &'a [u8],
}

/// The snapshot file's bytes: header, then payload. Deterministic: the same
/// state gives the same bytes.
pub fn encode(snapshot: &SnapshotRef<'_>) -> Result<Vec<u8>, SnapshotError> {
    let head = HeadOut {
        content_hash: snapshot.content_hash,
        workspace: Bytes(snapshot.workspace.as_os_str().as_bytes()),
        answers: snapshot.answers.map(|a| (Bytes(a.file.as_os_str().as_bytes()), a.next)),
        options: OptionsWire::from(snapshot.options),
        resumed: snapshot.resumed.map(ContinuationWire::from),
        bytecode: Bytes(snapshot.bytecode),
    };
    seal_payload(&head, Rest::Machine(snapshot.machine), snapshot.bytecode.len(), snapshot.key)
}

/// What follows the head: the machine, or its bytes as they were read.
enum Rest<'a> {
    Machine(&'a Machine),
    Encoded(&'a [u8]),
}

/// Header and payload: the payload encoded, signed with `key` if given,
/// its length and checksum.
fn seal_payload(
    head: &HeadOut<'_>,
    rest: Rest<'_>,
    bytecode_len: usize,
    key: Option<&SnapshotKey>,
) -> Result<Vec<u8>, SnapshotError> {
    let mut out = vec![0u8; HEADER_LEN];
    out.reserve(bytecode_len + 256 + SIGNATURE_LEN);
    let encode_error = |e: bincode::error::EncodeError| SnapshotError::Encode { reason: e.to_string() };
    bincode::serde::encode_into_std_write(head, &mut out, config()).map_err(encode_error)?;
    match rest {
        Rest::Machine(machine) => {
            bincode::serde::encode_into_std_write(machine, &mut out, config()).map_err(encode_error)?;
        }
        Rest::Encoded(bytes) => out.extend_from_slice(bytes),
    }
    if let Some(key) = key {
        let signature = signer(key, &out[HEADER_LEN..]).finalize().into_bytes();
        out.extend_from_slice(&signature);
    }
    let len = out.len() - HEADER_LEN;
    if len > MAX_PAYLOAD {
        return Err(SnapshotError::TooLarge { size: len as u64, limit: MAX_PAYLOAD as u64 });
    }
    let trailer = seal::trailer(&out[HEADER_LEN..]);
    out[..8].copy_from_slice(&MAGIC);
    out[8..10].copy_from_slice(&SNAPSHOT_VERSION.to_le_bytes());
    let flags = if key.is_some() { SIGNED } else { 0 };
    out[10..12].copy_from_slice(&flags.to_le_bytes());
    out[12..HEADER_LEN].copy_from_slice(&trailer);
    Ok(out)
}

/// The HMAC-SHA256 under `key` of the magic, the version and `body`
/// (the payload before the signature), not yet finished.
fn signer(key: &SnapshotKey, body: &[u8]) -> Hmac<Sha256> {
    let mut mac = key.hmac();
    mac.update(&MAGIC);
    mac.update(&SNAPSHOT_VERSION.to_le_bytes());
    mac.update(body);
    mac
}

/// A checked container: the payload before the signature, and the
/// signature if the header says there is one.
struct Opened<'a> {
    body: &'a [u8],
    signature: Option<&'a [u8]>,
}

/// [`check_header`], then the signature split off the payload.
fn open(bytes: &[u8]) -> Result<Opened<'_>, SnapshotError> {
    let payload = check_header(bytes)?;
    if u16_at(bytes, 10) & SIGNED == 0 {
        return Ok(Opened { body: payload, signature: None });
    }
    let Some(at) = payload.len().checked_sub(SIGNATURE_LEN) else {
        return Err(SnapshotError::Malformed {
            reason: format!(
                "it is marked signed, but its payload is shorter than a signature ({SIGNATURE_LEN} bytes)"
            ),
        });
    };
    Ok(Opened { body: &payload[..at], signature: Some(&payload[at..]) })
}

/// Whether the snapshot file `bytes` is intact and signed with `key`: a
/// snapshot this user's tissvm wrote, unchanged since. Only then are its
/// workspace and remembered options more than a claim (book: reference/snapshots.md).
pub fn signed_by(bytes: &[u8], key: &SnapshotKey) -> bool {
    match open(bytes) {
        Ok(Opened { body, signature: Some(signature) }) => signer(key, body).verify_slice(signature).is_ok(),
        _ => false,
    }
}

/// Checks magic, version, flags, length and checksum; returns the payload.
fn check_header(bytes: &[u8]) -> Result<&[u8], SnapshotError> {
    let limit = (HEADER_LEN + MAX_PAYLOAD) as u64;
    if bytes.len() as u64 > limit {
        return Err(SnapshotError::TooLarge { size: bytes.len() as u64, limit });
    }
    seal::check_start(bytes, &MAGIC, SNAPSHOT_VERSION, HEADER_LEN).map_err(|e| match e {
        StartError::NoMagic if bytes.is_empty() => SnapshotError::NotSnapshot(NotSnapshot::Empty),
        StartError::NoMagic if bytes.starts_with(&tisslang::container::MAGIC[..4]) => {
            SnapshotError::NotSnapshot(NotSnapshot::Bytecode)
        }
        StartError::NoMagic => SnapshotError::NotSnapshot(NotSnapshot::Other),
        StartError::LineEndingsConverted => SnapshotError::LineEndingsConverted,
        StartError::TruncatedHeader { len } => SnapshotError::TruncatedHeader { len },
        StartError::Version { found } => SnapshotError::Version { found, expected: SNAPSHOT_VERSION },
    })?;
    let flags = u16_at(bytes, 10);
    if flags & !KNOWN_FLAGS != 0 {
        return Err(SnapshotError::UnknownFlags { flags });
    }
    Ok(seal::open(bytes, HEADER_LEN, MAX_PAYLOAD)?)
}

impl From<SealError> for SnapshotError {
    fn from(e: SealError) -> SnapshotError {
        match e {
            SealError::TooLarge { size, limit } => SnapshotError::TooLarge { size, limit },
            SealError::Truncated { declared, present } => SnapshotError::Truncated { declared, present },
            SealError::TrailingBytes { count } => SnapshotError::TrailingBytes { count },
            SealError::ChecksumMismatch => SnapshotError::ChecksumMismatch,
        }
    }
}

/// Reads a snapshot file for [`read_snapshot`]: one larger than
/// [`MAX_FILE`] is refused before any of it is read, with an error of kind
/// `FileTooLarge` carrying [`SnapshotError::TooLarge`].
pub fn read(path: &Path) -> io::Result<Vec<u8>> {
    seal::read_file(path, MAX_FILE)?.map_err(|size| {
        io::Error::new(io::ErrorKind::FileTooLarge, SnapshotError::TooLarge { size, limit: MAX_FILE })
    })
}

/// Reads a snapshot: the container, then the embedded bytecode (decoded and
/// verified, its hash checked against the stored one), then the state,
/// decoded within what the bytecode allows and checked against what the
/// verifier knows of it. Nothing is copied out of `bytes` before every
/// check has passed.
pub fn read_snapshot(bytes: &[u8]) -> Result<Snapshot, SnapshotError> {
    let (HeadIn { content_hash, workspace, answers, options, resumed, bytecode }, rest, signed) =
        decode_head(bytes)?;
    let module = tisslang::container::decode(bytecode).map_err(SnapshotError::Bytecode)?;
    let facts = tisslang::verify::verify(&module).map_err(|e| SnapshotError::Bytecode(e.into()))?;
    let actual = tisslang::container::content_hash(&module);
    if actual != content_hash {
        return Err(SnapshotError::HashMismatch { stored: content_hash, actual });
    }
    let machine = decode_machine(rest, &module)?;
    state::check_state(&machine, &module, &facts).map_err(|reason| SnapshotError::Inconsistent { reason })?;
    Ok(Snapshot {
        machine,
        module,
        bytecode: bytecode.to_vec(),
        content_hash,
        workspace: bytes_path(workspace.0),
        answers: answers.map(|(file, next)| AnswersPosition { file: bytes_path(file.0), next }),
        options: options.into_options(),
        resumed: resumed.map(ContinuationWire::into_continuation),
        signed,
    })
}

/// The container checked and the payload's head decoded; the rest of the
/// payload (without the signature) is the machine's. And whether it is signed.
fn decode_head(bytes: &[u8]) -> Result<(HeadIn<'_>, &[u8], bool), SnapshotError> {
    let Opened { body: payload, signature } = open(bytes)?;
    let (head, used): (HeadIn<'_>, usize) = tisslang::codec::decode_budget::within(payload.len(), || {
        bincode::serde::borrow_decode_from_slice(payload, config())
    })
    .map_err(|e| SnapshotError::Malformed { reason: tisslang::container::decode_error_text(&e) })?;
    Ok((head, &payload[used..], signature.is_some()))
}

/// The machine from the rest of the payload: its collections each within
/// what `module` allows and claimed before they are allocated
/// (`machine/state_limits.rs`). More than the module allows does not fit it.
fn decode_machine(rest: &[u8], module: &Module) -> Result<Machine, SnapshotError> {
    let (decoded, refused) = crate::machine::state_limits::within(Limits::of(module), || {
        tisslang::codec::decode_budget::within(rest.len(), || {
            bincode::serde::decode_from_slice::<Machine, _>(rest, config())
        })
    });
    match (decoded, refused) {
        (Ok((machine, used)), _) if used == rest.len() => Ok(machine),
        (Ok((_, used)), _) => Err(SnapshotError::Malformed {
            reason: format!("{} unused bytes at the end of the payload", rest.len() - used),
        }),
        (Err(_), Some(reason)) => Err(SnapshotError::Inconsistent { reason }),
        (Err(e), None) => {
            Err(SnapshotError::Malformed { reason: tisslang::container::decode_error_text(&e) })
        }
    }
}

/// The snapshot file `bytes` with its resumed mark set to `resumed` (or
/// cleared), everything else as it was: the head is written again, and the
/// machine's bytes after it are copied, not decoded. Signed with `key` if
/// `bytes` was signed with it ([`signed_by`]), else unsigned: a snapshot
/// from elsewhere is never signed on its way through.
pub fn with_continuation(
    bytes: &[u8],
    resumed: Option<&Continuation>,
    key: Option<&SnapshotKey>,
) -> Result<Vec<u8>, SnapshotError> {
    let (HeadIn { content_hash, workspace, answers, options, resumed: _, bytecode }, rest, _) =
        decode_head(bytes)?;
    let key = key.filter(|key| signed_by(bytes, key));
    let head = HeadOut {
        content_hash: &content_hash,
        workspace: Bytes(&workspace.0),
        answers: answers.as_ref().map(|(file, next)| (Bytes(&file.0), *next)),
        options,
        resumed: resumed.map(ContinuationWire::from),
        bytecode: Bytes(bytecode),
    };
    seal_payload(&head, Rest::Encoded(rest), bytecode.len(), key)
}

/// Writes a snapshot's bytes to `path` atomically: a temporary file in the
/// same directory, fsync, rename over `path`, fsync of the directory.
/// The file is private (mode 0600): a run's state may hold file contents.
pub fn write_snapshot(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomically(path, bytes, Some(0o600))
}

/// Writes a snapshot's bytes as `DIR/STEM-N.snap` with the smallest `N ≥ 1`
/// not taken, never replacing a file (the temporary file is hard-linked to
/// its name, which fails if the name exists); creates `dir`. Returns the path.
pub fn write_new_snapshot(dir: &Path, stem: &str, bytes: &[u8]) -> io::Result<PathBuf> {
    fs::create_dir_all(dir)?;
    let temp = write_temp(dir, bytes, Some(0o600))?;
    let mut placed = Err(io::Error::other("no free snapshot name"));
    for n in 1..=1_000_000u32 {
        let path = dir.join(format!("{stem}-{n}.snap"));
        match fs::hard_link(&temp, &path) {
            Ok(()) => {
                placed = Ok(path);
                break;
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            // A file system without hard links: rename, checking first.
            Err(_) if !path.exists() => {
                placed = fs::rename(&temp, &path).map(|()| path);
                break;
            }
            Err(e) => {
                placed = Err(e);
                break;
            }
        }
    }
    let _ = fs::remove_file(&temp);
    let path = placed?;
    sync_dir(dir)?;
    Ok(path)
}

/// A file-name stem from a task description: lowercase ASCII letters and
/// digits, other runs of characters as one `-`, at most 40 characters;
/// `run` if nothing is left.
pub fn file_stem(task: &str) -> String {
    let mut out = String::new();
    for c in task.chars() {
        if c.is_ascii_alphanumeric() {
            if out.len() >= 40 {
                break;
            }
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let trimmed = out.trim_end_matches('-');
    if trimmed.is_empty() { "run".to_string() } else { trimmed.to_string() }
}

mod state;
#[cfg(test)]
mod tests;
