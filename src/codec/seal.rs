//! The part both containers share — the `.tbc` (`container`) and the VM's
//! snapshots: the header ends with the payload's length (`u32` LE) and its
//! CRC-32 (IEEE, `u32` LE), and both are checked before a byte of the payload
//! is decoded.
//!
//! The checksum guards against accidental damage (a truncated copy, a flipped
//! bit): CRC-32 catches every error burst up to 32 bits, so every single-byte
//! change, and costs 4 bytes and almost no time. It is not a defence against
//! a deliberately crafted file — no unkeyed checksum is — which is why
//! everything decoded is still verified. Identity (the content hash that
//! snapshots and `inspect` name) is SHA-256, computed separately.

use std::io::{self, Read};
use std::path::Path;

use sha2::{Digest, Sha256};

/// Bytes at the end of a sealed header: payload length, then CRC-32.
pub const TRAILER_LEN: usize = 8;

pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// The little-endian `u16` at `at` (the caller has checked the length).
pub fn u16_at(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([bytes[at], bytes[at + 1]])
}

/// The little-endian `u32` at `at` (the caller has checked the length).
pub fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// The header's last [`TRAILER_LEN`] bytes for `payload`. Each container
/// refuses to write a payload over its limit (which is below 4 GiB); past
/// 4 GiB the length saturates, so such a file could never be opened.
pub fn trailer(payload: &[u8]) -> [u8; TRAILER_LEN] {
    trailer_of(payload.len() as u64, crate::codec::crc32::crc32(payload))
}

/// [`trailer`] of a payload written as it was made: its length and CRC-32.
pub fn trailer_of(len: u64, crc: u32) -> [u8; TRAILER_LEN] {
    let len = u32::try_from(len).unwrap_or(u32::MAX);
    let mut out = [0u8; TRAILER_LEN];
    out[..4].copy_from_slice(&len.to_le_bytes());
    out[4..].copy_from_slice(&crc.to_le_bytes());
    out
}

/// Reads a container's file, of at most `limit` bytes (its header and the
/// largest payload it may have): a larger one is refused before any of it
/// is read, `Ok(Err(size))`, so no file is held in memory beyond what a
/// container can be. The bytes are read into one buffer of the file's size,
/// and the read stops past `limit` if the file grows meanwhile.
pub fn read_file(path: &Path, limit: u64) -> io::Result<Result<Vec<u8>, u64>> {
    let file = std::fs::File::open(path)?;
    let size = file.metadata()?.len();
    if size > limit {
        return Ok(Err(size));
    }
    let mut bytes = Vec::with_capacity(size as usize);
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Ok(Err(bytes.len() as u64));
    }
    Ok(Ok(bytes))
}

/// Writes the trailer of `file`'s `header_len`-byte header for the payload
/// after it: what each container's encoder does last, and what anyone who
/// alters a payload can do too (the fuzz targets and the re-sealed-input
/// tests do, to get past the checksum to the decoder and the verifier).
/// `file` must hold at least `header_len` bytes.
pub fn seal(file: &mut [u8], header_len: usize) {
    let trailer = trailer(&file[header_len..]);
    file[header_len - TRAILER_LEN..header_len].copy_from_slice(&trailer);
}

/// Why the start of a file is not a container's header. Each container maps
/// it onto its own error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StartError {
    /// Not this container at all (the container says what it looks like).
    NoMagic,
    /// The magic's CR LF / Ctrl-Z / LF canaries were rewritten: a text-mode
    /// transfer converted line endings.
    LineEndingsConverted,
    /// Cut short inside the header.
    TruncatedHeader { len: usize },
    /// Another version of the container (which may have another header).
    Version { found: u16 },
}

/// Whether `bytes` start as a file of the container `magic` names: its
/// first four bytes (the name), or a start cut short inside them. The
/// canaries after the name are left out, so a file whose line endings were
/// converted still counts, and its loader says what happened to it. This
/// is how a plan file is told from source (book: reference/formats.md), whatever its name.
pub fn names_container(bytes: &[u8], magic: &[u8; 8]) -> bool {
    bytes.starts_with(&magic[..4]) || (!bytes.is_empty() && magic[..4].starts_with(bytes))
}

/// Checks what both containers start with: an 8-byte magic whose first four
/// bytes name the container and whose last four are the canaries `CR LF ^Z
/// LF`, then the `u16` version, then the rest of a `header_len`-byte header.
/// The version is checked before the length, since another version may
/// have another header.
pub fn check_start(bytes: &[u8], magic: &[u8; 8], version: u16, header_len: usize) -> Result<(), StartError> {
    if !bytes.starts_with(magic) {
        if !bytes.is_empty() && magic.starts_with(bytes) {
            return Err(StartError::TruncatedHeader { len: bytes.len() });
        }
        if let Some(rest) = bytes.strip_prefix(&magic[..4])
            && (rest.starts_with(b"\n\x1a\n")
                || rest.starts_with(b"\r\r\n")
                || rest.starts_with(b"\r\n\x1a\r\n"))
        {
            return Err(StartError::LineEndingsConverted);
        }
        return Err(StartError::NoMagic);
    }
    if bytes.len() < magic.len() + 2 {
        return Err(StartError::TruncatedHeader { len: bytes.len() });
    }
    let found = u16_at(bytes, magic.len());
    if found != version {
        return Err(StartError::Version { found });
    }
    if bytes.len() < header_len {
        return Err(StartError::TruncatedHeader { len: bytes.len() });
    }
    Ok(())
}

/// Why a sealed payload was refused. Each container maps it onto its own error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SealError {
    /// The declared length is over the container's limit.
    TooLarge { size: u64, limit: u64 },
    /// Fewer payload bytes than declared.
    Truncated { declared: u64, present: u64 },
    /// Bytes after the declared payload.
    TrailingBytes { count: u64 },
    /// The payload is not the one the header's checksum names.
    ChecksumMismatch,
}

/// Checks a header of `header_len` bytes that ends with a [`trailer`];
/// returns the payload. `bytes` must hold at least `header_len` bytes.
pub fn open(bytes: &[u8], header_len: usize, max_payload: usize) -> Result<&[u8], SealError> {
    let declared = u64::from(u32_at(bytes, header_len - TRAILER_LEN));
    let limit = max_payload as u64;
    if declared > limit {
        return Err(SealError::TooLarge { size: declared, limit });
    }
    let present = (bytes.len() - header_len) as u64;
    if present < declared {
        return Err(SealError::Truncated { declared, present });
    }
    if present > declared {
        return Err(SealError::TrailingBytes { count: present - declared });
    }
    let payload = &bytes[header_len..];
    if crate::codec::crc32::crc32(payload) != u32_at(bytes, header_len - 4) {
        return Err(SealError::ChecksumMismatch);
    }
    Ok(payload)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_container_is_named_by_its_first_four_bytes() {
        let magic = *b"\x1bTBC\r\n\x1a\n";
        assert!(names_container(b"\x1bTBC\r\n\x1a\nrest", &magic));
        assert!(names_container(b"\x1bTBC\n\x1a\n", &magic), "line endings converted");
        assert!(names_container(b"\x1bTB", &magic), "cut short inside the name");
        assert!(!names_container(b"TASK \"x\"", &magic));
        assert!(!names_container(b"", &magic));
        assert!(!names_container(b"\x1bTSN\r\n\x1a\n", &magic), "another container");
    }

    fn sealed(payload: &[u8]) -> Vec<u8> {
        let mut out = trailer(payload).to_vec();
        out.extend_from_slice(payload);
        out
    }

    #[test]
    fn a_sealed_file_opens() {
        let mut file = sealed(b"hello");
        file[8] = b'j';
        assert_eq!(open(&file, 8, 100), Err(SealError::ChecksumMismatch));
        seal(&mut file, 8);
        assert_eq!(open(&file, 8, 100), Ok(&b"jello"[..]));
        file.push(b'!');
        seal(&mut file, 8);
        assert_eq!(open(&file, 8, 100), Ok(&b"jello!"[..]), "the length is the payload's too");
    }

    #[test]
    fn every_defect_has_its_error() {
        let good = sealed(b"hello");
        assert_eq!(open(&good, 8, 100), Ok(&b"hello"[..]));
        assert_eq!(open(&good, 8, 4), Err(SealError::TooLarge { size: 5, limit: 4 }));
        assert_eq!(open(&good[..11], 8, 100), Err(SealError::Truncated { declared: 5, present: 3 }));
        let mut long = good.clone();
        long.push(0);
        assert_eq!(open(&long, 8, 100), Err(SealError::TrailingBytes { count: 1 }));
        let mut flipped = good;
        flipped[10] ^= 1;
        assert_eq!(open(&flipped, 8, 100), Err(SealError::ChecksumMismatch));
    }

    #[test]
    fn every_start_defect_has_its_error() {
        const MAGIC: [u8; 8] = *b"\x1bXYZ\r\n\x1a\n";
        let good = [&MAGIC[..], &7u16.to_le_bytes(), &[0; 4]].concat();
        assert_eq!(check_start(&good, &MAGIC, 7, 14), Ok(()));
        assert_eq!(check_start(&good[..12], &MAGIC, 7, 14), Err(StartError::TruncatedHeader { len: 12 }));
        assert_eq!(check_start(&good[..9], &MAGIC, 7, 14), Err(StartError::TruncatedHeader { len: 9 }));
        assert_eq!(check_start(&good[..3], &MAGIC, 7, 14), Err(StartError::TruncatedHeader { len: 3 }));
        assert_eq!(check_start(&good, &MAGIC, 8, 14), Err(StartError::Version { found: 7 }));
        assert_eq!(
            check_start(b"\x1bXYZ\n\x1a\n\x07\0", &MAGIC, 7, 14),
            Err(StartError::LineEndingsConverted)
        );
        assert_eq!(check_start(b"", &MAGIC, 7, 14), Err(StartError::NoMagic));
        assert_eq!(check_start(b"hello world", &MAGIC, 7, 14), Err(StartError::NoMagic));
    }

    #[test]
    fn files_over_the_limit_are_not_read() {
        let dir = std::env::temp_dir().join(format!("tiss-seal-read-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f");
        std::fs::write(&path, b"0123456789").unwrap();
        assert_eq!(read_file(&path, 10).unwrap(), Ok(b"0123456789".to_vec()));
        assert_eq!(read_file(&path, 9).unwrap(), Err(10));
        assert!(read_file(&dir.join("missing"), 10).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_checksum_is_the_standard_crc32() {
        // The IEEE CRC-32 check value.
        assert_eq!(&trailer(b"123456789")[4..], &0xCBF4_3926u32.to_le_bytes());
    }
}
