//! The part both containers share — the `.tbc` (`format.rs`) and the VM's
//! snapshots: the header declares the payload's length and ends with its
//! SHA-256, and both are checked before a byte of the payload is decoded.

use sha2::{Digest, Sha256};

/// Length of the SHA-256 that ends a sealed header.
pub const CHECKSUM_LEN: usize = 32;

pub fn sha256(bytes: &[u8]) -> [u8; CHECKSUM_LEN] {
    Sha256::digest(bytes).into()
}

/// The little-endian `u16` at `at` (the caller has checked the length).
pub fn u16_at(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([bytes[at], bytes[at + 1]])
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

/// Checks a header whose bytes `length_at..length_at + 8` hold the payload
/// length (`u64` LE) and whose last [`CHECKSUM_LEN`] bytes hold its SHA-256;
/// returns the payload. `bytes` must hold at least `header_len` bytes.
pub fn open(
    bytes: &[u8],
    header_len: usize,
    length_at: usize,
    max_payload: usize,
) -> Result<&[u8], SealError> {
    let mut len = [0u8; 8];
    len.copy_from_slice(&bytes[length_at..length_at + 8]);
    let declared = u64::from_le_bytes(len);
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
    if sha256(payload)[..] != bytes[header_len - CHECKSUM_LEN..header_len] {
        return Err(SealError::ChecksumMismatch);
    }
    Ok(payload)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A header of 4 bytes of length at offset 0 (padded to 8) and the checksum.
    fn sealed(payload: &[u8]) -> Vec<u8> {
        let mut out = (payload.len() as u64).to_le_bytes().to_vec();
        out.extend_from_slice(&sha256(payload));
        out.extend_from_slice(payload);
        out
    }

    #[test]
    fn every_defect_has_its_error() {
        let good = sealed(b"hello");
        assert_eq!(open(&good, 40, 0, 100), Ok(&b"hello"[..]));
        assert_eq!(open(&good, 40, 0, 4), Err(SealError::TooLarge { size: 5, limit: 4 }));
        assert_eq!(open(&good[..43], 40, 0, 100), Err(SealError::Truncated { declared: 5, present: 3 }));
        let mut long = good.clone();
        long.push(0);
        assert_eq!(open(&long, 40, 0, 100), Err(SealError::TrailingBytes { count: 1 }));
        let mut flipped = good;
        flipped[42] ^= 1;
        assert_eq!(open(&flipped, 40, 0, 100), Err(SealError::ChecksumMismatch));
    }
}
