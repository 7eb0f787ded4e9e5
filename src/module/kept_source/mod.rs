//! A module's source text: what a `.tbc` keeps of it, and finding the text
//! to show beside the code (the debugger's `list` and `where`, `disasm`).
//!
//! By default a `.tbc` keeps only a hash of the text its line table refers
//! to, so it stays smaller than its source; the text is then read from the
//! plan's `.tiss` beside the `.tbc` and shown only if it still has that hash
//! (an edited file would show lines that are not the code's). `tissc compile
//! --embed-source` keeps the text itself, and `--strip` neither.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::codec::seal::sha256;

/// Bytes of SHA-256 a [`SourceHash`] keeps: 128 bits, far beyond any
/// accidental match, and no one can make another text with a given hash.
pub const HASH_LEN: usize = 16;

/// The first [`HASH_LEN`] bytes of the SHA-256 of a plan's text (after the
/// compiler removed a byte-order mark).
#[derive(Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceHash(pub [u8; HASH_LEN]);

impl SourceHash {
    pub fn of(text: &str) -> SourceHash {
        let mut hash = [0; HASH_LEN];
        hash.copy_from_slice(&sha256(text.as_bytes())[..HASH_LEN]);
        SourceHash(hash)
    }
}

impl fmt::Display for SourceHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

impl fmt::Debug for SourceHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SourceHash({self})")
    }
}

/// What a module keeps of its plan's source. The module's last field: the
/// content hash (`container::content_hash`) leaves it out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Source {
    /// Nothing (`tissc compile --strip`).
    Stripped,
    /// The hash of the text (`tissc compile`'s default): the `.tiss` beside
    /// the `.tbc` is shown when its text has it.
    Hash(SourceHash),
    /// The text, named by its file name (`tissc compile --embed-source`, and
    /// a `.tiss` compiled in memory).
    Embedded { name: String, text: String },
}

impl Source {
    /// The embedded text, if any.
    pub fn text(&self) -> Option<&str> {
        match self {
            Source::Embedded { text, .. } => Some(text),
            Source::Stripped | Source::Hash(_) => None,
        }
    }

    /// Keeps only the hash of an embedded text.
    pub fn drop_text(&mut self) {
        if let Source::Embedded { text, .. } = self {
            *self = Source::Hash(SourceHash::of(text));
        }
    }
}

/// The source text to show with a module's code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceText {
    /// The embedded file name, or the path of the file read.
    pub name: String,
    pub text: String,
    /// Read from the `.tiss` beside the `.tbc` (else embedded).
    pub beside: bool,
}

/// Why there is no source text to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unavailable {
    /// Compiled with `--strip`.
    Stripped,
    /// Only the hash is kept and there is no plan file to look beside (the
    /// bytecode came from a snapshot or from memory).
    NoPlanFile,
    /// Only the hash is kept and the `.tiss` beside the `.tbc` is missing.
    Missing { path: PathBuf },
    /// It is there but cannot be read.
    Unreadable { path: PathBuf, error: String },
    /// It is there but its text is not the one compiled.
    Changed { path: PathBuf },
}

impl fmt::Display for Unavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unavailable::Stripped => {
                f.write_str("the bytecode has no source: it was compiled with `tissc compile --strip`")
            }
            Unavailable::NoPlanFile => f.write_str(
                "the bytecode keeps only its source's hash, and there is no plan file to look for the \
                 `.tiss` beside",
            ),
            Unavailable::Missing { path } => write!(
                f,
                "the bytecode keeps only its source's hash, and `{}` is not there; put the plan's source \
                 there, or compile with `tissc compile --embed-source` to keep the text in the .tbc",
                path.display()
            ),
            Unavailable::Unreadable { path, error } => write!(f, "cannot read `{}`: {error}", path.display()),
            Unavailable::Changed { path } => write!(
                f,
                "`{}` is not the text this bytecode was compiled from (it changed since), so its lines \
                 would not match the code; recompile with `tissc compile {}`",
                path.display(),
                path.display()
            ),
        }
    }
}

/// The `.tiss` looked for beside the `.tbc` at `plan`: same directory, same
/// stem (what `tissc compile FILE.tiss` writes beside FILE.tiss).
pub fn beside(plan: &Path) -> PathBuf {
    plan.with_extension("tiss")
}

/// The source text to show with a module that kept `source`, loaded from
/// the file `plan` (`None`: no file, e.g. a snapshot's bytecode): the
/// embedded text, or the `.tiss` beside `plan` when its text has the
/// module's source hash.
pub fn find(source: &Source, plan: Option<&Path>) -> Result<SourceText, Unavailable> {
    let expected = match source {
        Source::Embedded { name, text } => {
            return Ok(SourceText { name: name.clone(), text: text.clone(), beside: false });
        }
        Source::Stripped => return Err(Unavailable::Stripped),
        Source::Hash(hash) => *hash,
    };
    let path = beside(plan.ok_or(Unavailable::NoPlanFile)?);
    let bytes = std::fs::read(&path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Unavailable::Missing { path: path.clone() },
        _ => Unavailable::Unreadable { path: path.clone(), error: e.to_string() },
    })?;
    // Decoded as the compiler decodes it: a byte-order mark is not text.
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    match std::str::from_utf8(bytes) {
        Ok(text) if SourceHash::of(text) == expected => {
            Ok(SourceText { name: path.display().to_string(), text: text.to_string(), beside: true })
        }
        _ => Err(Unavailable::Changed { path }),
    }
}

#[cfg(test)]
mod tests;
