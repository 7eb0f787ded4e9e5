//! `tisslang`: the contract both sides of the toolchain agree on.
//!
//! The compiler (`tiss-compiler`) produces and the VM (`tiss-vm`) consumes what
//! this crate defines. It knows nothing about syntax or execution.

pub mod bounds;
pub mod cost;
pub mod cost_model;
pub mod crc32;
pub mod disasm;
pub mod duration;
pub mod format;
pub mod isa;
pub mod module;
pub mod seal;
pub mod source;
pub mod strings;
pub mod verify;
pub mod version;
