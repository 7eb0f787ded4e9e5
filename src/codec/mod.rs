//! What both containers, the `.tbc` (`container`) and the VM's snapshots,
//! build on: the sealed header's length and checksum (`seal`, `crc32`) and
//! the memory budget every decoding is held to (`decode_budget`).

pub mod crc32;
pub mod decode_budget;
pub mod seal;
