//! The `.tbc` container: a fixed header, then the module as a bincode payload.
//!
//! This is the one module that knows the codec (bincode 2.0.1 through serde,
//! standard configuration: little-endian varints), so it can be swapped
//! without touching anything else.
//!
//! Header (all integers little-endian), [`HEADER_LEN`] = 26 bytes:
//!
//! | offset | size | field                                                    |
//! |-------:|-----:|----------------------------------------------------------|
//! |      0 |    8 | magic `1B 'T' 'B' 'C' 0D 0A 1A 0A` ([`MAGIC`])           |
//! |      8 |    2 | format version ([`FORMAT_VERSION`])                      |
//! |     10 |    6 | language version: major, minor, patch (u16 each)         |
//! |     16 |    2 | flags: bit 0 = source text embedded; other bits zero     |
//! |     18 |    4 | payload length in bytes (u32)                            |
//! |     22 |    4 | CRC-32 of the payload (`seal.rs` says why not a hash)    |
//! |     26 |    … | payload: the `Module`, bincode-encoded                   |
//!
//! Like PNG's and Lua's, the magic carries a CR LF pair, a Ctrl-Z and a lone
//! LF, so a file that went through a text-mode transfer is recognized as
//! such. Nothing in the file depends on time or hash-map order: identical
//! modules give identical bytes.
//!
//! Loading trusts nothing: magic, format version, language version, flags,
//! length and checksum are checked before the payload is decoded (with a
//! size limit), and [`load`] then runs the verifier.

use std::fmt;
use std::io;

use crate::module::{Module, Source};
use sha2::{Digest, Sha256};

use crate::codec::seal::{self, SealError, StartError, u16_at};
use crate::verify::{self, VerifyError};
use crate::version::{LANGUAGE_VERSION, Version};

/// The version of this container and of everything inside it (instruction
/// set, module layout). Bump it whenever either changes; the fingerprint test
/// in `src/container/tests.rs` fails until you do.
pub const FORMAT_VERSION: u16 = 6;

/// The first eight bytes of every `.tbc`.
pub const MAGIC: [u8; 8] = *b"\x1bTBC\r\n\x1a\n";

/// Bytes before the payload.
pub const HEADER_LEN: usize = 8 + 2 + 6 + 2 + seal::TRAILER_LEN;

/// The largest payload the loader accepts (and bincode's allocation limit).
pub const MAX_PAYLOAD: usize = 256 * 1024 * 1024;

/// The largest `.tbc` file: its header and the largest payload. Nothing
/// larger is read ([`read`]).
pub const MAX_FILE: u64 = (HEADER_LEN + MAX_PAYLOAD) as u64;

/// Header flag: the module embeds its source text.
pub const FLAG_SOURCE: u16 = 1;

const KNOWN_FLAGS: u16 = FLAG_SOURCE;

type Config = bincode::config::Configuration<
    bincode::config::LittleEndian,
    bincode::config::Varint,
    bincode::config::Limit<MAX_PAYLOAD>,
>;

fn config() -> Config {
    bincode::config::standard().with_limit::<MAX_PAYLOAD>()
}

/// What a file that is not bytecode appears to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Looks {
    Empty,
    /// Text that looks like a TissLang plan.
    TissSource,
    Text,
    Binary,
}

/// Why a `.tbc` was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadError {
    /// No `.tbc` magic number.
    NotBytecode { looks_like: Looks },
    /// The magic number is there but its line-ending bytes were rewritten.
    LineEndingsConverted,
    /// Shorter than the header.
    TruncatedHeader { len: usize },
    /// Written by a toolchain with another container/instruction-set version.
    FormatVersion { found: u16, expected: u16 },
    /// Compiled for a language version this VM does not implement.
    LanguageVersion { found: [u16; 3], supported: Version },
    /// Flag bits this VM does not know.
    UnknownFlags { flags: u16 },
    /// The file or its declared payload exceeds [`MAX_PAYLOAD`].
    TooLarge { size: u64, limit: u64 },
    /// The payload is shorter than the header says.
    Truncated { declared: u64, present: u64 },
    /// Bytes after the payload.
    TrailingBytes { count: u64 },
    /// The payload's CRC-32 is not the one in the header.
    ChecksumMismatch,
    /// The payload passed the checksum but is not a well-formed module.
    Malformed { reason: String },
    /// The header disagrees with the payload.
    HeaderMismatch { what: &'static str },
    /// The module is well-formed but its code or tables are invalid.
    Verify(VerifyError),
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::NotBytecode { looks_like } => {
                f.write_str("not a TissLang bytecode file")?;
                match looks_like {
                    Looks::Empty => f.write_str(" (the file is empty)"),
                    Looks::TissSource => f.write_str(
                        ": it looks like TissLang source; compile it first with `tissc compile FILE`",
                    ),
                    Looks::Text => f.write_str(
                        ": it is a text file (if it is a plan's source, compile it first with \
                         `tissc compile FILE`)",
                    ),
                    Looks::Binary => f.write_str(" (no `.tbc` magic number)"),
                }
            }
            LoadError::LineEndingsConverted => f.write_str(
                "corrupt TissLang bytecode file: its line endings were converted (it was copied \
                 or transferred in text mode); copy it as binary, or recompile",
            ),
            LoadError::TruncatedHeader { len } => {
                write!(
                    f,
                    "truncated TissLang bytecode file: {len} bytes, shorter than the {HEADER_LEN}-byte header"
                )
            }
            LoadError::FormatVersion { found, expected } => write!(
                f,
                "compiled by a different tissc: format v{found}, this VM reads v{expected}; recompile"
            ),
            LoadError::LanguageVersion { found, supported } => write!(
                f,
                "compiled for TissLang {}.{}.{}, but this VM implements TissLang {supported}",
                found[0], found[1], found[2]
            ),
            LoadError::UnknownFlags { flags } => write!(
                f,
                "unsupported TissLang bytecode file: unknown header flags 0x{:04X}; recompile",
                flags & !KNOWN_FLAGS
            ),
            LoadError::TooLarge { size, limit } => {
                write!(f, "TissLang bytecode file too large: {size} bytes (the limit is {limit})")
            }
            LoadError::Truncated { declared, present } => write!(
                f,
                "truncated TissLang bytecode file: the header announces {declared} payload bytes, \
                 {present} are present"
            ),
            LoadError::TrailingBytes { count } => {
                write!(f, "corrupt TissLang bytecode file: {count} unexpected bytes after the payload")
            }
            LoadError::ChecksumMismatch => f.write_str(
                "corrupt TissLang bytecode file: the payload's checksum does not match the header \
                 (the file was damaged after it was written)",
            ),
            LoadError::Malformed { reason } => {
                write!(f, "malformed TissLang bytecode file: {reason}")
            }
            LoadError::HeaderMismatch { what } => {
                write!(f, "corrupt TissLang bytecode file: the header's {what} disagrees with the payload")
            }
            LoadError::Verify(e) => write!(f, "invalid TissLang bytecode: {e}"),
        }
    }
}

impl std::error::Error for LoadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LoadError::Verify(e) => Some(e),
            _ => None,
        }
    }
}

impl From<VerifyError> for LoadError {
    fn from(e: VerifyError) -> LoadError {
        LoadError::Verify(e)
    }
}

fn hex(bytes: &[u8]) -> String {
    use fmt::Write;
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

fn language_u16(module: &Module) -> [u16; 3] {
    module.language.map(|v| u16::try_from(v).unwrap_or(u16::MAX))
}

/// bincode's writer for [`encode`]: appends to the output, without the
/// error plumbing of `std::io::Write` on every one of the many small writes.
struct Append<'a>(&'a mut Vec<u8>);

impl bincode::enc::write::Writer for Append<'_> {
    #[inline]
    fn write(&mut self, bytes: &[u8]) -> Result<(), bincode::error::EncodeError> {
        self.0.extend_from_slice(bytes);
        Ok(())
    }
}

/// The header of `module`'s `.tbc`, with zeros where the payload's length and
/// checksum go.
fn header(module: &Module) -> [u8; HEADER_LEN] {
    let mut out = [0u8; HEADER_LEN];
    out[..8].copy_from_slice(&MAGIC);
    out[8..10].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    for (i, part) in language_u16(module).into_iter().enumerate() {
        out[10 + 2 * i..12 + 2 * i].copy_from_slice(&part.to_le_bytes());
    }
    let flags = if module.source.text().is_some() { FLAG_SOURCE } else { 0 };
    out[16..18].copy_from_slice(&flags.to_le_bytes());
    out
}

/// The `.tbc` bytes of `module`: header, then payload. Deterministic.
pub fn encode(module: &Module) -> Vec<u8> {
    // Encoded straight after the header, into a buffer sized generously so
    // the payload is never copied (pages never written cost nothing).
    let text = module.strings.text_len();
    let source = module.source.text().map_or(0, str::len);
    let tables = 8 * module.code.len() + 4 * module.lines.len() + 64 * module.steps.len();
    let mut out = Vec::with_capacity(HEADER_LEN + text + source + tables + 4096);
    out.extend_from_slice(&header(module));
    // `Module` is plain data with derived `Serialize` and sequences of known
    // length: bincode cannot fail on it (the limit applies to decoding only).
    bincode::serde::encode_into_writer(module, Append(&mut out), config()).expect("a Module always encodes");
    seal::seal(&mut out, HEADER_LEN);
    out
}

/// bincode's writer for [`encode_to`]: passes the payload on, counting it.
/// Past [`MAX_PAYLOAD`] it only counts, so the error can say how large the
/// payload would be.
struct Counting<W> {
    out: W,
    len: u64,
}

impl<W: io::Write> bincode::enc::write::Writer for Counting<W> {
    #[inline]
    fn write(&mut self, bytes: &[u8]) -> Result<(), bincode::error::EncodeError> {
        self.len += bytes.len() as u64;
        if self.len > MAX_PAYLOAD as u64 {
            return Ok(());
        }
        self.out.write_all(bytes).map_err(|inner| bincode::error::EncodeError::Io { inner, index: 0 })
    }
}

/// Passes bytes on, keeping their CRC-32. Under a buffered writer, so it
/// sees a few large writes rather than bincode's many small ones.
struct Checksumming<W> {
    out: W,
    crc: crc32fast::Hasher,
}

impl<W: io::Write> io::Write for Checksumming<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let n = self.out.write(bytes)?;
        self.crc.update(&bytes[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// [`encode`] into `out`, which cannot seek back to the header (a pipe, a
/// terminal): the bytes are made in memory first, then written whole. A
/// payload over [`MAX_PAYLOAD`] is refused as [`encode_to`] refuses it,
/// before anything is written.
pub fn encode_to_stream<W: io::Write>(module: &Module, mut out: W) -> io::Result<()> {
    let bytes = encode(module);
    let size = (bytes.len() - HEADER_LEN) as u64;
    if size > MAX_PAYLOAD as u64 {
        let too_large = LoadError::TooLarge { size, limit: MAX_PAYLOAD as u64 };
        return Err(io::Error::new(io::ErrorKind::FileTooLarge, too_large));
    }
    out.write_all(&bytes)?;
    out.flush()
}

/// [`encode`] into `out` (from its start) while the module is encoded, so
/// the bytecode is never held in memory: the same bytes, with the
/// payload's length and checksum written into the header last. A payload
/// over [`MAX_PAYLOAD`] is refused with an error of kind `FileTooLarge`
/// carrying [`LoadError::TooLarge`] (no loader would accept the file), and
/// `out` is left with part of it.
pub fn encode_to<W: io::Write + io::Seek>(module: &Module, mut out: W) -> io::Result<()> {
    out.write_all(&header(module))?;
    let payload = Checksumming { out, crc: crc32fast::Hasher::new() };
    let mut counting = Counting { out: io::BufWriter::with_capacity(64 * 1024, payload), len: 0 };
    match bincode::serde::encode_into_writer(module, &mut counting, config()) {
        Ok(()) => {}
        Err(bincode::error::EncodeError::Io { inner, .. }) => return Err(inner),
        // As in `encode`: nothing but the writer can fail.
        Err(e) => return Err(io::Error::other(e.to_string())),
    }
    if counting.len > MAX_PAYLOAD as u64 {
        let too_large = LoadError::TooLarge { size: counting.len, limit: MAX_PAYLOAD as u64 };
        return Err(io::Error::new(io::ErrorKind::FileTooLarge, too_large));
    }
    let Checksumming { mut out, crc } = counting.out.into_inner().map_err(io::IntoInnerError::into_error)?;
    out.seek(io::SeekFrom::Start((HEADER_LEN - seal::TRAILER_LEN) as u64))?;
    out.write_all(&seal::trailer_of(counting.len, crc.finalize()))?;
    out.flush()
}

/// bincode's writer for [`content_hash`]: hashes what it is given, a chunk
/// at a time, but the last `keep` bytes, which it holds back until the end.
/// A chunk is at least `keep` bytes, so the bytes moved to the buffer's
/// start after each are never more than those hashed.
struct Hashing {
    sha: Sha256,
    buffer: Vec<u8>,
    keep: usize,
    chunk: usize,
}

impl Hashing {
    fn new(keep: usize) -> Hashing {
        let chunk = keep.max(64 * 1024);
        Hashing { sha: Sha256::new(), buffer: Vec::with_capacity(keep + chunk + 4096), keep, chunk }
    }

    /// Hashes all but the last `keep` bytes held.
    fn hash_held(&mut self) {
        let n = self.buffer.len().saturating_sub(self.keep);
        self.sha.update(&self.buffer[..n]);
        self.buffer.copy_within(n.., 0);
        self.buffer.truncate(self.buffer.len() - n);
    }
}

impl bincode::enc::write::Writer for Hashing {
    #[inline]
    fn write(&mut self, bytes: &[u8]) -> Result<(), bincode::error::EncodeError> {
        self.buffer.extend_from_slice(bytes);
        if self.buffer.len() >= self.keep + self.chunk {
            self.hash_held();
        }
        Ok(())
    }
}

/// The code's identity: hex SHA-256 of the payload of `module` with its
/// source stripped, so what is kept of the source (text, hash or nothing)
/// does not change it. The payload is hashed as it is encoded, never held
/// in memory (a snapshot being read holds its file and the module already).
pub fn content_hash(module: &Module) -> String {
    // `source` is the module's last field: stripped, the payload would end
    // in the variant number of `Stripped` (one zero byte) where it ends in
    // the encoded source. So the encoded source is held back, not hashed,
    // and that byte hashed instead. A test holds this to `encode` of the
    // stripped module.
    let stripped = module.source == Source::Stripped;
    let keep = if stripped {
        0
    } else {
        let mut size = bincode::enc::write::SizeWriter::default();
        bincode::serde::encode_into_writer(&module.source, &mut size, config())
            .expect("a Source always encodes");
        size.bytes_written
    };
    let mut hashing = Hashing::new(keep);
    bincode::serde::encode_into_writer(module, &mut hashing, config()).expect("a Module always encodes");
    hashing.hash_held();
    if !stripped {
        hashing.sha.update([0]);
    }
    hex(&hashing.sha.finalize())
}

/// What `bytes` (which do not start with the magic) appear to be.
fn looks_like(bytes: &[u8]) -> Looks {
    if bytes.is_empty() {
        return Looks::Empty;
    }
    let head = &bytes[..bytes.len().min(4096)];
    let text = match std::str::from_utf8(head) {
        Ok(s) => s,
        // A multi-byte character cut by the 4096-byte window is still text.
        Err(e) if e.error_len().is_none() => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or(""),
        Err(_) => return Looks::Binary,
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.chars().any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r' | '\x0c')) {
        return Looks::Binary;
    }
    let tiss = text.lines().any(|line| {
        let line = line.trim_start();
        ["#TISS", "TASK ", "STEP ", "SETUP ", "DEFINE_TASK "].iter().any(|k| line.starts_with(k))
    });
    if tiss { Looks::TissSource } else { Looks::Text }
}

/// Checks magic, version, flags, length and checksum; returns the payload.
fn check_header(bytes: &[u8]) -> Result<&[u8], LoadError> {
    seal::check_start(bytes, &MAGIC, FORMAT_VERSION, HEADER_LEN).map_err(|e| match e {
        StartError::NoMagic => LoadError::NotBytecode { looks_like: looks_like(bytes) },
        StartError::LineEndingsConverted => LoadError::LineEndingsConverted,
        StartError::TruncatedHeader { len } => LoadError::TruncatedHeader { len },
        StartError::Version { found } => LoadError::FormatVersion { found, expected: FORMAT_VERSION },
    })?;
    let language = [u16_at(bytes, 10), u16_at(bytes, 12), u16_at(bytes, 14)];
    if !language_supported(language) {
        return Err(LoadError::LanguageVersion { found: language, supported: LANGUAGE_VERSION });
    }
    let flags = u16_at(bytes, 16);
    if flags & !KNOWN_FLAGS != 0 {
        return Err(LoadError::UnknownFlags { flags });
    }
    Ok(seal::open(bytes, HEADER_LEN, MAX_PAYLOAD)?)
}

impl From<SealError> for LoadError {
    fn from(e: SealError) -> LoadError {
        match e {
            SealError::TooLarge { size, limit } => LoadError::TooLarge { size, limit },
            SealError::Truncated { declared, present } => LoadError::Truncated { declared, present },
            SealError::TrailingBytes { count } => LoadError::TrailingBytes { count },
            SealError::ChecksumMismatch => LoadError::ChecksumMismatch,
        }
    }
}

/// This VM runs modules compiled for its own major version and an equal or
/// older minor version.
fn language_supported(found: [u16; 3]) -> bool {
    let ours = LANGUAGE_VERSION;
    u64::from(found[0]) == ours.major && u64::from(found[1]) <= ours.minor
}

/// Reads a `.tbc` file for [`load`]: one larger than [`MAX_FILE`] is
/// refused before any of it is read, with an error of kind `FileTooLarge`
/// carrying [`LoadError::TooLarge`].
pub fn read(path: &std::path::Path) -> io::Result<Vec<u8>> {
    seal::read_file(path, MAX_FILE)?.map_err(|size| {
        io::Error::new(io::ErrorKind::FileTooLarge, LoadError::TooLarge { size, limit: MAX_FILE })
    })
}

/// Decodes a `.tbc` without verifying the code (see [`load`]).
pub fn decode(bytes: &[u8]) -> Result<Module, LoadError> {
    let limit = (HEADER_LEN + MAX_PAYLOAD) as u64;
    if bytes.len() as u64 > limit {
        return Err(LoadError::TooLarge { size: bytes.len() as u64, limit });
    }
    let payload = check_header(bytes)?;
    // Every table claims its memory before it is allocated (`decode_budget.rs`).
    let (module, used): (Module, usize) = crate::codec::decode_budget::within(payload.len(), || {
        bincode::serde::decode_from_slice(payload, config())
    })
    .map_err(|e| LoadError::Malformed { reason: decode_error_text(&e) })?;
    if used != payload.len() {
        return Err(LoadError::Malformed {
            reason: format!("{} unused bytes at the end of the payload", payload.len() - used),
        });
    }
    if language_u16(&module) != [u16_at(bytes, 10), u16_at(bytes, 12), u16_at(bytes, 14)]
        || module.language.iter().any(|&v| v > u64::from(u16::MAX))
    {
        return Err(LoadError::HeaderMismatch { what: "language version" });
    }
    if (u16_at(bytes, 16) & FLAG_SOURCE != 0) != module.source.text().is_some() {
        return Err(LoadError::HeaderMismatch { what: "source-embedded flag" });
    }
    Ok(module)
}

/// What bincode could not decode, in words: the `.tbc` and the snapshots
/// report this rather than bincode's own names (`LimitExceeded`, ...).
pub fn decode_error_text(error: &bincode::error::DecodeError) -> String {
    use bincode::error::DecodeError as E;
    match error {
        E::UnexpectedEnd { additional } => format!(
            "the data ends {additional} byte(s) too early: the file is cut short, or a length inside it is wrong"
        ),
        E::LimitExceeded => {
            "a length inside the file claims more data than a file may hold (over the size limit)".to_string()
        }
        E::InvalidIntegerType { .. } | E::OutsideUsizeRange(_) => {
            "a number inside the file is out of range for its field".to_string()
        }
        E::UnexpectedVariant { type_name, found, .. } => {
            let name = type_name.rsplit("::").next().unwrap_or(type_name);
            format!("a `{name}` field holds kind number {found}, which this format does not have")
        }
        E::Utf8 { .. } | E::InvalidCharEncoding(_) => {
            "a string inside the file is not valid UTF-8".to_string()
        }
        E::InvalidBooleanValue(value) => format!("a true/false field holds {value}, neither 0 nor 1"),
        E::ArrayLengthMismatch { required, found } => {
            format!("a fixed-size field has {found} entries where it must have {required}")
        }
        E::NonZeroTypeIsZero { .. } => "a field that is never zero holds zero".to_string(),
        // Our own checks while decoding (a string table's spans, ...) speak already.
        E::OtherString(text) => text.clone(),
        E::Other(text) => (*text).to_string(),
        other => format!("the data cannot be decoded ({other})"),
    }
}

/// Decodes and verifies a `.tbc`: what the VM runs has passed every check.
pub fn load(bytes: &[u8]) -> Result<Module, LoadError> {
    let module = decode(bytes)?;
    verify::verify(&module)?;
    Ok(module)
}

#[cfg(test)]
mod tests;
