//! CRC-32 (IEEE 802.3), the checksum `seal` puts in every `.tbc` and
//! snapshot header. A large payload goes to crc32fast, whose carry-less
//! multiplication is several times faster than a table. A small one (a
//! trivial plan's `.tbc` is about 100 bytes) is checksummed a byte at a time
//! from a table made at compile time: crc32fast first asks the CPU what it
//! supports (`cpuid`, through the standard library's feature detection),
//! and on a virtual machine each `cpuid` traps to the hypervisor, which cost
//! 1.8% of a trivial `tissvm run` (book: performance.md).

/// Up to this many bytes the table is used: about 4 µs at most, less than
/// the feature detection costs on a virtual machine.
const SMALL: usize = 4096;

/// The remainder of each byte value, for the reflected polynomial.
const TABLE: [u32; 256] = table();

const fn table() -> [u32; 256] {
    let mut table = [0u32; 256];
    let mut byte = 0;
    while byte < 256 {
        let mut crc = byte as u32;
        let mut bit = 0;
        while bit < 8 {
            crc = if crc & 1 == 1 { 0xEDB8_8320 ^ (crc >> 1) } else { crc >> 1 };
            bit += 1;
        }
        table[byte] = crc;
        byte += 1;
    }
    table
}

/// The CRC-32 of `bytes`, as `crc32fast::hash` gives it.
pub fn crc32(bytes: &[u8]) -> u32 {
    if bytes.len() > SMALL {
        return crc32fast::hash(bytes);
    }
    !bytes.iter().fold(!0u32, |crc, &b| TABLE[((crc ^ u32::from(b)) & 0xFF) as usize] ^ (crc >> 8))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_standard_check_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
    }

    /// Both paths give crc32fast's value, at every length up to past the
    /// threshold, for bytes that are not all alike.
    #[test]
    fn agrees_with_crc32fast_on_either_side_of_the_threshold() {
        let bytes: Vec<u8> =
            (0..SMALL as u32 + 64).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        for len in (0..=SMALL + 64).step_by(7).chain([SMALL - 1, SMALL, SMALL + 1]) {
            assert_eq!(crc32(&bytes[..len]), crc32fast::hash(&bytes[..len]), "{len} bytes");
        }
    }
}
